import { checkFunction, checkKnownKeys, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { checkTemplate } from "../scope/check-template.js";
import { messageText } from "../scope/message-text.js";
import { resolveNamespace, type NamespaceTemplate } from "../scope/namespace-template.js";
import { validateRecallOptions } from "./recall.js";
import { preloadMemoryBlock, preloadScope } from "./recall-context.js";
import { resolveStore } from "../scope/resolve-store.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { withLayoutTemplates } from "../scope/layout-templates.js";
import { createMemoryTools, type MemoryToolsOptions } from "./tools.js";
import { checkEpisodeOptions, episodeTools, type EpisodeMemoryOptions } from "../episodes/options.js";
import { checkProcedureOptions, learnedInstructionsSection, type ProcedureOptions } from "../procedures/section.js";

/**
 * How memories reach the model.
 * - `preload`: recalled and shown before every model call.
 * - `postload`: the model gets `search_memory` / `remember` / `forget` tools.
 * - `both`: both of the above.
 * - `none`: neither (writeMemory may still save facts).
 */
export type MemoryMode = "preload" | "postload" | "both" | "none";

const MODES: readonly MemoryMode[] = ["preload", "postload", "both", "none"];

/** The state callModel reads: any state with a `messages` channel. */
export interface MessagesState {
  messages: BaseMessage[];
}

/** Options for {@link callModel}. */
export interface CallModelOptions {
  /** The chat model. Must support `bindTools` when tools are bound. */
  model: BaseChatModel;
  /**
   * Memory namespace template, e.g. `["users", "{user_id}"]`. With `layout`,
   * leave it out: the layout's `facts` namespace is used (a different one is
   * refused with `InvalidOptionError`).
   * @default the layout's facts namespace (required without `layout`)
   */
  namespace?: NamespaceTemplate;
  /** How memories reach the model. @default "preload" */
  mode?: MemoryMode;
  /**
   * The store to recall from. Prefer passing it.
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default config.store
   */
  store?: BaseStore;
  /** Your own tools, bound in every mode. @default [] */
  tools?: StructuredToolInterface[];
  /** Your own system prompt, sent first, before the memory context. @default undefined */
  systemPrompt?: string;
  /**
   * `"separate"`: your system prompt, then the memory context, as two system
   * messages. `"single"`: both in one system message (your prompt, a blank
   * line, then the `[Long-term Memory Context]` block), for providers such
   * as Anthropic that accept only one leading system message.
   * @default "separate"
   */
  systemMessages?: "separate" | "single";
  /** Most memories to preload. @default 5 */
  limit?: number;
  /** Preload keeps query hits scoring at least this. @default 0 */
  scoreThreshold?: number;
  /** Fill free places with the newest memories. @default true */
  fillWithRecent?: boolean;
  /** Items read to find the newest memories. @default 1000 */
  recentScanLimit?: number;
  /** Token budget (estimated) for the memory-context message. @default undefined (none) */
  maxTokens?: number;
  /**
   * Builds the recall query from the state. Return an empty string to skip
   * the search (recent memories are still shown).
   * @default the text of the latest human message
   */
  queryBuilder?: (state: MessagesState, config: LangGraphRunnableConfig) => string | Promise<string>;
  /**
   * Options for the memory tools bound in postload/both modes.
   * @default {}
   */
  memoryTools?: Omit<MemoryToolsOptions, "namespace" | "store" | "layout">;
  /**
   * Episodic memory (past conversation turns): preloads the most relevant
   * turns after the facts (preload modes) and adds the
   * `search_conversations` tool (postload modes).
   * @default undefined (no episodic memory)
   */
  episodes?: EpisodeMemoryOptions;
  /**
   * Procedural memory: the agent's learned instructions (and the run's
   * user's, see `ProcedureOptions.userKey`), read before every model call and
   * sent as their OWN system section, `[Learned Instructions]`, after your
   * system prompt and before the memory context, within `procedures.maxTokens`.
   * Never written to the graph state or the checkpoint.
   * @default undefined (no learned instructions)
   */
  procedures?: ProcedureOptions;
  /**
   * Where a person's memory lives (see `defaultMemoryLayout`), declared once:
   * the facts are read and written in its `facts` namespace and the episodes
   * in its `episodes` namespace (leave out `namespace` and
   * `episodes.namespace`; different ones are refused with
   * `InvalidOptionError`). In preload modes, every kind it declares with
   * `recall` is preloaded too, in its own section of the memory block, from
   * the same query embedding as the facts and episodes. The forget paths
   * erase every kind it names.
   * @default undefined (facts in `namespace`, episodes in `episodes.namespace`)
   */
  layout?: MemoryLayout;
}

/** The text of the latest human message, or "" when there is none. */
export function latestHumanText(messages: BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].getType() === "human") return messageText(messages[i]);
  }
  return "";
}

/** Whether a mode preloads memories. */
export const preloads = (mode: MemoryMode): boolean => mode === "preload" || mode === "both";
/** Whether a mode gives the model memory tools. */
export const postloads = (mode: MemoryMode): boolean => mode === "postload" || mode === "both";

/** Validates a mode; throws {@link InvalidArgumentError} naming it. */
export function checkMode(mode: unknown): MemoryMode {
  if (mode === null || !MODES.includes(mode as MemoryMode)) {
    throw new InvalidArgumentError(`mode must be one of ${MODES.map((m) => `"${m}"`).join(", ")}, got ${JSON.stringify(mode)}`);
  }
  return mode as MemoryMode;
}

/**
 * A node that calls the chat model with long-term memory.
 *
 * In preload mode it searches the namespace (query: the latest human message),
 * and shows what it found as ONE system message beginning
 * `[Long-term Memory Context]`, after your own system prompt. That message is
 * built per call and never returned: the node's update holds only the model's
 * reply, so checkpoints keep the conversation and nothing else.
 *
 * @example
 * ```ts
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("call_model", callModel({ model, namespace: ["users", "{user_id}"], store }))
 *   .addEdge(START, "call_model");
 * ```
 */
export function callModel(given: CallModelOptions): (state: MessagesState, config: LangGraphRunnableConfig) => Promise<{ messages: BaseMessage[] }> {
  if (!given || typeof given.model?.invoke !== "function") {
    throw new InvalidArgumentError("callModel needs `model`, a chat model");
  }
  checkKnownKeys(given, OPTION_KEYS.callModel);
  checkKnownKeys(given.episodes, OPTION_KEYS.episodes, "episodes.");
  checkKnownKeys(given.memoryTools, OPTION_KEYS.memoryTools, "memoryTools.");
  // Facts and episodes templates: the layout's, when it is given.
  const options = withLayoutTemplates(given);
  const mode = checkMode(options.mode === undefined ? "preload" : options.mode);
  validateRecallOptions(options);
  checkString(options.systemPrompt, "systemPrompt", true);
  checkFunction(options.queryBuilder, "queryBuilder");
  checkTemplate(options.namespace);
  checkEpisodeOptions(options.episodes);
  checkProcedureOptions(options.procedures);
  const layout = options.systemMessages ?? "separate";
  if (layout !== "separate" && layout !== "single") {
    throw new InvalidArgumentError(`systemMessages must be "separate" or "single", got ${JSON.stringify(options.systemMessages)}`);
  }

  const tools = [
    ...(postloads(mode) ? createMemoryTools({ ...options.memoryTools, namespace: options.namespace, store: options.store }) : []),
    ...(postloads(mode) ? episodeTools(options.episodes, options.store) : []),
    ...(options.tools ?? []),
  ];
  const names = new Set<string>();
  for (const t of tools) {
    if (names.has(t.name)) throw new InvalidArgumentError(`two tools are named "${t.name}"; tool names must be unique`);
    names.add(t.name);
  }
  let bound: Runnable<BaseMessage[], BaseMessage> = options.model;
  if (tools.length > 0) {
    if (typeof options.model.bindTools !== "function") {
      throw new InvalidArgumentError(`model ${options.model._llmType?.() ?? ""} does not support bindTools, but tools were given`);
    }
    bound = options.model.bindTools(tools) as Runnable<BaseMessage[], BaseMessage>;
  }

  return async (state, config) => {
    // The turn's scope: store and every namespace resolved once (a missing value fails before any read).
    const scope = preloads(mode) || options.procedures ? preloadScope(options, config) : undefined;
    if (!scope) resolveNamespace(options.namespace, config);
    // The learned instructions are read while the preload embeds its query and searches (neither waits for the other).
    const [context, learned] = await Promise.all([
      preloads(mode)
        ? (async () => {
            const query = options.queryBuilder ? await options.queryBuilder(state, config) : latestHumanText(state.messages);
            return preloadMemoryBlock(options, { config, query, withKeys: mode === "both", scope });
          })()
        : undefined,
      options.procedures ? learnedInstructionsSection(options.procedures, { store: scope?.store ?? options.store, config }) : undefined,
    ]);
    const parts = [options.systemPrompt, learned, context].filter((p): p is string => Boolean(p));
    const prefix = layout === "single" && parts.length > 0 ? [new SystemMessage(parts.join("\n\n"))] : parts.map((p) => new SystemMessage(p));
    const reply = await bound.invoke([...prefix, ...state.messages], config);
    return { messages: [reply] };
  };
}
