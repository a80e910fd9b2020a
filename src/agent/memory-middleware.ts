import { checkBoolean, checkKnownKeys, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { isGraphBubbleUp } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { createMiddleware, MiddlewareError, ToolInvocationError } from "langchain";
import { z } from "zod";
import { checkEpisodeOptions, episodeTemplate, episodeTools, type EpisodeMemoryOptions } from "../episodes/options.js";
import { writeEpisodes } from "../episodes/write-episodes.js";
import { InvalidArgumentError } from "../errors.js";
import type { MemoryExtractor } from "../extract/extractor.js";
import { checkMode, latestHumanText, postloads, preloads, type CallModelOptions, type MemoryMode } from "../graph/call-model.js";
import { isFatalMemoryError } from "../graph/memory-tool-node.js";
import { validateRecallOptions } from "../graph/recall.js";
import { preloadMemoryBlock, preloadScope } from "../graph/recall-context.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { withLayoutTemplates } from "../scope/layout-templates.js";
import { createMemoryTools, type MemoryToolsOptions } from "../graph/tools.js";
import { writeMemory, type WriteMemoryOptions } from "../graph/write-memory.js";
import { checkTemplate } from "../scope/check-template.js";
import { resolveNamespace, templateKeys, type NamespaceTemplate } from "../scope/namespace-template.js";
import { AUTH_USER_PLACEHOLDER } from "../scope/run-values.js";
import { withMemoryBlock } from "./system-message.js";
import { checkProcedureOptions, learnedInstructionsSection, procedureContextKeys, type ProcedureOptions } from "../procedures/section.js";

/** Options of {@link memoryMiddleware}. */
export interface MemoryMiddlewareOptions
  extends Pick<CallModelOptions, "limit" | "scoreThreshold" | "fillWithRecent" | "recentScanLimit" | "maxTokens" | "queryBuilder"> {
  /**
   * Memory namespace template, e.g. `["users", "{user_id}"]`. Placeholders are
   * filled per run from `context` (`agent.invoke(input, { context: { user_id } })`),
   * else `config.configurable`; `{langgraph_auth_user_id}` from the LangGraph
   * server's authenticated user only. With `layout`, leave it out: the
   * layout's `facts` namespace is used (a different one is refused with
   * `InvalidOptionError`).
   * @default the layout's facts namespace (required without `layout`)
   */
  namespace?: NamespaceTemplate;
  /**
   * The store. Prefer passing it: the one createAgent hands to middleware is
   * LangGraph's per-run batching wrapper (it is unwrapped when used).
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default runtime.store (what `createAgent({ store })` passes)
   */
  store?: BaseStore;
  /**
   * How memories reach the model: `preload` (a memory block before every
   * model call), `postload` (the memory tools), `both`, or `none`
   * (extraction only).
   * @default "preload"
   */
  mode?: MemoryMode;
  /**
   * Options of the memory tools contributed in postload/both modes.
   * @default {}
   */
  memoryTools?: Omit<MemoryToolsOptions, "namespace" | "store" | "layout">;
  /**
   * Extraction after the agent finishes (`afterAgent`): a `MemoryExtractor`,
   * or writeMemory's options (`{ extractor, debounceSeconds, ttl }`).
   * @default undefined (no extraction)
   */
  extract?: MemoryExtractor | Omit<WriteMemoryOptions, "namespace" | "store" | "layout">;
  /**
   * Episodic memory (past conversation turns), as in `callModel`/`withMemory`:
   * in preload modes the relevant past turns join the memory block (within
   * `maxTokens`); in postload modes the model gets `search_conversations`;
   * and after the agent (`afterAgent`) the thread's new turns are recorded
   * (`recordEpisodes`, keyed by `thread_id`) unless `record: false`.
   * @default undefined (no episodes)
   */
  episodes?: EpisodeMemoryOptions;
  /**
   * In postload/both modes the middleware wraps tool calls, and langchain
   * then stops turning tool exceptions into messages. With `true`, errors of
   * any tool (other than configuration errors: missing user id, closed,
   * locked or corrupt store, which always fail the run) become error
   * ToolMessages for the model, as createAgent does without middleware.
   * @default true
   */
  handleToolErrors?: boolean;
  /**
   * Procedural memory: the agent's learned instructions (and the run's
   * user's), read before every model call and added to the system message as
   * their own block, `[Learned Instructions]`, before the memory block, within
   * `procedures.maxTokens`. Nothing is written to the agent's state.
   * @default undefined (no learned instructions)
   */
  procedures?: ProcedureOptions;
  /**
   * Where a person's memory lives (see `defaultMemoryLayout`), declared once:
   * facts are recalled, given to the tools and extracted in its `facts`
   * namespace, episodes recalled and recorded in its `episodes` namespace
   * (leave out `namespace` and `episodes.namespace`; different ones are
   * refused with `InvalidOptionError`). In preload modes every kind it
   * declares with `recall` joins the memory block, from the same query
   * embedding as the facts and episodes.
   * @default undefined (facts in `namespace`, episodes in `episodes.namespace`)
   */
  layout?: MemoryLayout;
  /**
   * Middleware name (must be unique among an agent's middleware).
   * @default "MemoryMiddleware"
   */
  name?: string;
}

type Extract = MemoryMiddlewareOptions["extract"];

function toWriteOptions(extract: Extract): Omit<WriteMemoryOptions, "namespace" | "store" | "layout"> | undefined {
  if (extract === undefined) return undefined;
  if (typeof (extract as MemoryExtractor).save === "function") return { extractor: extract as MemoryExtractor };
  return extract as Omit<WriteMemoryOptions, "namespace" | "store" | "layout">;
}

/** What middleware hooks get as `runtime`, in the parts memory reads. */
interface RuntimeLike {
  context?: unknown;
  configurable?: Record<string, unknown>;
  store?: BaseStore;
}

/** The LangGraph config the scope helpers read, rebuilt from a middleware runtime. */
function runConfig(runtime: RuntimeLike): LangGraphRunnableConfig {
  return {
    configurable: runtime.configurable ?? {},
    context: (runtime.context ?? {}) as Record<string, unknown>,
    store: runtime.store,
  } as LangGraphRunnableConfig;
}

/**
 * Long-term memory for `createAgent` (langchain v1), as one middleware.
 *
 * - **preload** (`wrapModelCall`): recalls memories for the latest user
 *   message and adds them, for that model call only, to the agent's system
 *   message as one block beginning `[Long-term Memory Context]`. Nothing is
 *   written to the agent's state, so checkpoints never hold it.
 * - **postload**: contributes `search_memory`, `list_memories`, `remember`
 *   and `forget` as tools; configuration errors in them fail the run instead
 *   of becoming a message for the model (`wrapToolCall`).
 * - **extraction** (`afterAgent`): hands the thread to a `MemoryExtractor`,
 *   inline or debounced, as `writeMemory` does.
 * - **episodes** (option `episodes`): past turns in the preload block, the
 *   `search_conversations` tool in postload, and the thread's new turns
 *   recorded after the agent.
 *
 * A run without the namespace's values (e.g. no `user_id`) fails in
 * `beforeAgent` with `MissingConfigError`, before the model is called.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { memoryMiddleware } from "langgraph-hnsw-memory/agent";
 *
 * const agent = createAgent({
 *   model, tools: [], checkpointer, store,
 *   middleware: [memoryMiddleware({ namespace: ["users", "{user_id}"], mode: "both", extract: { extractor } })],
 * });
 * await agent.invoke({ messages: [{ role: "user", content: "I'm vegetarian" }] },
 *   { configurable: { thread_id: "monday" }, context: { user_id: session.userId } });
 * ```
 */
export function memoryMiddleware(given: MemoryMiddlewareOptions) {
  if (!given || typeof given !== "object") throw new InvalidArgumentError("memoryMiddleware needs options: { namespace, ... }");
  checkKnownKeys(given, OPTION_KEYS.memoryMiddleware);
  checkKnownKeys(given.episodes, OPTION_KEYS.episodes, "episodes.");
  checkKnownKeys(given.memoryTools, OPTION_KEYS.memoryTools, "memoryTools.");
  // Facts and episodes templates: the layout's, when it is given; preload, tools, extraction and recording get them.
  const options = withLayoutTemplates(given);
  const mode = checkMode(options.mode === undefined ? "preload" : options.mode);
  checkTemplate(options.namespace);
  checkBoolean(options.handleToolErrors, "handleToolErrors");
  checkString(options.name, "name");
  validateRecallOptions(options);
  checkEpisodeOptions(options.episodes);
  checkProcedureOptions(options.procedures);
  const episodes = options.episodes;
  const handleToolErrors = options.handleToolErrors ?? true;
  const template = options.namespace;
  const tools = postloads(mode)
    ? [...createMemoryTools({ ...options.memoryTools, namespace: template, store: options.store }), ...episodeTools(episodes, options.store)]
    : [];
  const writeOptions = toWriteOptions(options.extract);
  const writeFacts = writeOptions?.extractor ? writeMemory({ ...writeOptions, namespace: template, store: options.store }) : undefined;
  const recordTurns =
    episodes && episodes.record !== false
      ? writeEpisodes({ namespace: episodeTemplate(episodes), store: options.store, speakers: episodes.speakers })
      : undefined;

  // Middleware hooks only see the context keys their contextSchema names.
  const contextKeys = [
    ...templateKeys(template),
    ...templateKeys(options.memoryTools?.sharedNamespace ?? []),
    ...(episodes ? templateKeys(episodeTemplate(episodes)) : []),
    ...procedureContextKeys(options.procedures),
    ...(options.layout?.kinds ?? []).filter((k) => k.recall).flatMap((k) => templateKeys(k.namespace)),
  ].filter((k, i, all) => k !== AUTH_USER_PLACEHOLDER && all.indexOf(k) === i);
  const contextSchema = z.object(Object.fromEntries(contextKeys.map((k) => [k, z.unknown().optional()])));

  const checkStore = (runtime: RuntimeLike) => {
    if (!options.store && !runtime.store) {
      throw new InvalidArgumentError("memoryMiddleware has no store: pass `store` in its options, or createAgent({ store })");
    }
  };

  return createMiddleware({
    name: options.name ?? "MemoryMiddleware",
    contextSchema,
    tools,
    beforeAgent: async (_state, runtime) => {
      // Fail the run before any model call when the namespace cannot be filled.
      resolveNamespace(template, runConfig(runtime as RuntimeLike));
      if (episodes) resolveNamespace(episodeTemplate(episodes), runConfig(runtime as RuntimeLike));
      checkStore(runtime as RuntimeLike);
      return undefined;
    },
    wrapModelCall: async (request, handler) => {
      if (!preloads(mode) && !options.procedures) return handler(request);
      const config = runConfig(request.runtime as RuntimeLike);
      // The turn's scope: store and every namespace resolved once.
      const scope = preloadScope(options, config);
      // The learned instructions are read while the preload embeds its query and searches (neither waits for the other).
      const [learned, block] = await Promise.all([
        options.procedures ? learnedInstructionsSection(options.procedures, { store: scope.store, config }) : undefined,
        preloads(mode)
          ? (async () => {
              const state = { messages: request.messages as BaseMessage[] };
              const query = options.queryBuilder ? await options.queryBuilder(state, config) : latestHumanText(state.messages);
              return preloadMemoryBlock(options, { config, query, withKeys: mode === "both", scope });
            })()
          : undefined,
      ]);
      let systemMessage = request.systemMessage;
      if (learned) systemMessage = withMemoryBlock(systemMessage, learned);
      if (block) systemMessage = withMemoryBlock(systemMessage, block);
      return systemMessage === request.systemMessage ? handler(request) : handler({ ...request, systemMessage });
    },
    wrapToolCall: postloads(mode)
      ? async (request, handler) => {
          try {
            return await handler(request);
          } catch (e) {
            // Configuration errors, interrupts and other middleware's errors go up.
            if (!handleToolErrors || isFatalMemoryError(e) || isGraphBubbleUp(e) || MiddlewareError.isInstance(e)) throw e;
            const call = request.toolCall;
            const content = ToolInvocationError.isInstance(e) ? e.message : `${String(e)}\n Please fix your mistakes.`;
            return new ToolMessage({ content, tool_call_id: call.id ?? "", name: call.name, status: "error" });
          }
        }
      : undefined,
    afterAgent:
      writeFacts || recordTurns
        ? async (state, runtime) => {
            const config = runConfig(runtime as RuntimeLike);
            await recordTurns?.({ messages: state.messages }, config);
            await writeFacts?.({ messages: state.messages }, config);
            return undefined;
          }
        : undefined,
  });
}
