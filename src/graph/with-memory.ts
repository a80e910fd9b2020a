import { checkBoolean, checkOptions, pickKnown } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseMessage } from "@langchain/core/messages";
import { END, START, type StateGraph } from "@langchain/langgraph";
import { InvalidArgumentError } from "../errors.js";
import type { MemoryExtractor } from "../extract/extractor.js";
import { callModel, checkMode, postloads, type CallModelOptions, type MemoryMode } from "./call-model.js";
import { MemoryToolNode } from "./memory-tool-node.js";
import { checkTemplate } from "../scope/check-template.js";
import { createMemoryTools } from "./tools.js";
import { writeMemory, type WriteMemoryOptions } from "./write-memory.js";
import { checkEpisodeOptions, episodeTemplate, episodeTools } from "../episodes/options.js";
import { writeEpisodes } from "../episodes/write-episodes.js";
import { resolveNamespace } from "../scope/namespace-template.js";
import { withLayoutTemplates } from "../scope/layout-templates.js";

/** Node names {@link withMemory} adds. */
export const MEMORY_NODES = { callModel: "call_model", tools: "tools", writeMemory: "write_memory" } as const;

/** Options for {@link withMemory}: those of callModel, plus extraction. */
export interface WithMemoryOptions extends Omit<CallModelOptions, "mode"> {
  /**
   * How memories reach the model: `preload` (recalled before every call),
   * `postload` (memory tools), `both`, or `none`.
   * @default "preload"
   */
  mode?: MemoryMode;
  /**
   * Extraction after the final answer: a `MemoryExtractor`, or writeMemory's
   * options (`{ extractor, debounceSeconds, ttl }`). Without it the
   * write_memory node saves nothing.
   * @default undefined (no extraction)
   */
  extract?: MemoryExtractor | Omit<WriteMemoryOptions, "namespace" | "store" | "layout">;
  /**
   * Let the model read errors of its tools (other than configuration errors,
   * which always fail the run).
   * @default true
   */
  handleToolErrors?: boolean;
}

// The graph's own type parameters do not matter here: withMemory only needs
// a `messages` channel, and returns the same graph object.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyStateGraph = StateGraph<any, any, any, any, any, any, any, any, any, any>;

function hasToolCalls(messages: BaseMessage[]): boolean {
  const last = messages[messages.length - 1] as (BaseMessage & { tool_calls?: unknown[] }) | undefined;
  return last !== undefined && last.getType() === "ai" && (last.tool_calls?.length ?? 0) > 0;
}

function toWriteOptions(extract: WithMemoryOptions["extract"]): Omit<WriteMemoryOptions, "namespace" | "store" | "layout"> | undefined {
  if (extract === undefined) return undefined;
  if (typeof (extract as MemoryExtractor).save === "function") return { extractor: extract as MemoryExtractor };
  return extract as Omit<WriteMemoryOptions, "namespace" | "store" | "layout">;
}

/**
 * Adds long-term memory to a `StateGraph` whose state has a `messages`
 * channel (`MessagesAnnotation` or a superset). It adds the nodes
 * `call_model`, `tools` (when the model has tools: memory tools in
 * postload/both modes, plus yours) and `write_memory`, wired as
 * START → call_model → (tools → call_model)* → write_memory → END.
 *
 * Pass a graph with no nodes or edges of its own from START; the returned
 * graph (the same object) is ready for `compile({ checkpointer, store })`.
 *
 * @example
 * ```ts
 * const graph = withMemory(new StateGraph(MessagesAnnotation), {
 *   model, mode: "preload", namespace: ["users", "{user_id}"], store,
 *   extract: new MemoryExtractor({ model }),
 * }).compile({ checkpointer, store });
 * await graph.invoke({ messages: [new HumanMessage("hi")] },
 *   { configurable: { thread_id: "t1", user_id: session.userId } });
 * ```
 */
export function withMemory<G extends AnyStateGraph>(graph: G, given: WithMemoryOptions): G {
  checkOptions(given, "withMemory options", OPTION_KEYS.withMemory, { optional: false });
  const g = graph as AnyStateGraph;
  if (!g || typeof g.addNode !== "function" || typeof g.channels !== "object") {
    throw new InvalidArgumentError("withMemory expects a StateGraph (not a compiled graph), e.g. new StateGraph(MessagesAnnotation)");
  }
  if (!("messages" in g.channels)) {
    throw new InvalidArgumentError(
      `withMemory needs a state with a \`messages\` channel (MessagesAnnotation or a superset); this graph has: ${Object.keys(g.channels).join(", ") || "none"}`,
    );
  }
  if (!given || typeof given !== "object") throw new InvalidArgumentError("withMemory needs options: { model, namespace, ... }");
  // Facts and episodes templates: the layout's, when it is given; every node below gets them.
  const options = withLayoutTemplates(given);
  const mode = checkMode(options.mode === undefined ? "preload" : options.mode);
  checkTemplate(options.namespace);
  checkBoolean(options.handleToolErrors, "handleToolErrors");
  checkEpisodeOptions(options.episodes);
  for (const name of Object.values(MEMORY_NODES)) {
    if (name in g.nodes) throw new InvalidArgumentError(`the graph already has a node named "${name}"; withMemory adds its own`);
  }

  const tools = [
    ...(postloads(mode) ? createMemoryTools({ ...options.memoryTools, namespace: options.namespace, store: options.store }) : []),
    ...(postloads(mode) ? episodeTools(options.episodes, options.store) : []),
    ...(options.tools ?? []),
  ];
  const model = callModel(pickKnown({ ...options, mode }, OPTION_KEYS.callModel) as CallModelOptions);
  const writeOptions = toWriteOptions(options.extract);
  const writeFacts = writeMemory({ ...writeOptions, namespace: options.namespace, store: options.store });
  const episodes = options.episodes;
  const recordTurns =
    episodes && episodes.record !== false
      ? writeEpisodes({ namespace: episodeTemplate(episodes), store: options.store, speakers: episodes.speakers })
      : undefined;
  const write: typeof writeFacts = recordTurns
    ? async (state, config) => {
        resolveNamespace(options.namespace, config); // a missing config value fails before anything is written
        await recordTurns(state, config);
        return writeFacts(state, config);
      }
    : writeFacts;

  g.addNode(MEMORY_NODES.callModel, model);
  g.addNode(MEMORY_NODES.writeMemory, write);
  g.addEdge(START, MEMORY_NODES.callModel);
  g.addEdge(MEMORY_NODES.writeMemory, END);
  if (tools.length > 0) {
    const namespaces = [
      options.namespace,
      ...(postloads(mode) && options.memoryTools?.sharedNamespace ? [options.memoryTools.sharedNamespace] : []),
      ...(postloads(mode) && episodes && episodes.tool !== false ? [episodeTemplate(episodes)] : []),
    ];
    g.addNode(MEMORY_NODES.tools, new MemoryToolNode(tools, { namespaces, handleToolErrors: options.handleToolErrors }));
    g.addConditionalEdges(
      MEMORY_NODES.callModel,
      (state: { messages: BaseMessage[] }) => (hasToolCalls(state.messages) ? MEMORY_NODES.tools : MEMORY_NODES.writeMemory),
      [MEMORY_NODES.tools, MEMORY_NODES.writeMemory],
    );
    g.addEdge(MEMORY_NODES.tools, MEMORY_NODES.callModel);
  } else {
    g.addEdge(MEMORY_NODES.callModel, MEMORY_NODES.writeMemory);
  }
  return graph;
}
