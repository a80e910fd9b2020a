import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseStore, SearchItem } from "@langchain/langgraph-checkpoint";
import { estimateTokens, formatMemoryContext, MEMORY_CONTEXT_HEADER, MEMORY_CONTEXT_PREAMBLE } from "./format-memories.js";
import { episodeTemplate, preloadEpisodeSection, type EpisodeMemoryOptions } from "../episodes/options.js";
import { recallMemories, type RecallOptions } from "./recall.js";
import { resolveNamespace, threadIdOf, type NamespaceTemplate } from "../scope/namespace-template.js";
import { waitForPendingWrites } from "../scope/pending-writes.js";
import { resolveStore } from "../scope/resolve-store.js";

/** Options of {@link recallMemoryContext}: where to recall from, and recallMemories' own. */
export interface RecallMemoryContextOptions extends RecallOptions {
  /**
   * The namespace to recall from: a template such as `["users", "{user_id}"]`
   * (filled from `config`), or a plain namespace.
   */
  namespace: NamespaceTemplate;
  /**
   * The store. Prefer passing it.
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default config.store, unwrapped from LangGraph's per-run wrapper
   */
  store?: BaseStore;
  /**
   * The run's config: fills the template's placeholders (from `context`, then
   * `configurable`), supplies the store when `store` is not given, and the
   * thread id used to decide which background writes to wait for.
   * @default undefined (a template with placeholders then throws MissingConfigError)
   */
  config?: LangGraphRunnableConfig;
}

/** What {@link recallMemoryContext} found. */
export interface RecalledMemoryContext {
  /** The resolved namespace the memories came from. */
  namespace: string[];
  /** The memories picked: relevant ones first, then the newest. */
  items: SearchItem[];
  /**
   * The text of the one system message to show the model, beginning
   * `[Long-term Memory Context]`, or `undefined` when nothing was found.
   */
  block: string | undefined;
}

/**
 * The recall step of preload, as one building block for your own nodes: it
 * resolves the namespace, waits for background memory writes on it (see
 * waitForPendingWrites), picks the memories (up to `limit` relevant to
 * `query` above `scoreThreshold`, then the newest, within `maxTokens`) and
 * formats the `[Long-term Memory Context]` block. `callModel` and the
 * createAgent middleware both use it.
 *
 * @example
 * ```ts
 * async function agent(state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
 *   const { block } = await recallMemoryContext({ store, namespace: ["users", "{user_id}"], config,
 *     query: state.messages.at(-1)?.text ?? "" });
 *   const reply = await model.invoke([...(block ? [new SystemMessage(block)] : []), ...state.messages]);
 *   return { messages: [reply] };
 * }
 * ```
 */
export async function recallMemoryContext(options: RecallMemoryContextOptions): Promise<RecalledMemoryContext> {
  checkOptions(options, "recallMemoryContext options", OPTION_KEYS.recallMemoryContext, { optional: false });
  const { namespace: template, store: given, config, ...recall } = options;
  const namespace = resolveNamespace(template, config);
  const store = resolveStore(given, config);
  await waitForPendingWrites(store, namespace, { thread: threadIdOf(config) });
  const items = await recallMemories(store, namespace, recall);
  return { namespace, items, block: formatMemoryContext(items, { withKeys: recall.withKeys ?? false }) };
}

/**
 * Appends the past-conversation section to a memory block (facts first),
 * within what is left of `maxTokens`: the episodic preload of callModel and
 * of the createAgent middleware. Returns the block unchanged when no episode fits.
 */
async function withEpisodeSection(
  block: string | undefined,
  options: { episodes: EpisodeMemoryOptions; store?: BaseStore; config?: LangGraphRunnableConfig; query: string; maxTokens?: number },
): Promise<string | undefined> {
  const base = block ?? `${MEMORY_CONTEXT_HEADER}\n${MEMORY_CONTEXT_PREAMBLE}`;
  const budget = options.maxTokens === undefined ? undefined : options.maxTokens - estimateTokens(base);
  const store = resolveStore(options.store, options.config);
  const section = await preloadEpisodeSection(store, resolveNamespace(episodeTemplate(options.episodes), options.config), options.query, {
    limit: options.episodes.preloadLimit,
    budget,
  });
  return section ? `${base}\n${section}` : block;
}

/** The preload settings callModel and the createAgent middleware share. */
export type PreloadSettings = Pick<RecallOptions, "limit" | "scoreThreshold" | "fillWithRecent" | "recentScanLimit" | "maxTokens"> & {
  namespace: NamespaceTemplate;
  store?: BaseStore;
  episodes?: EpisodeMemoryOptions;
};

/**
 * The whole preload of callModel and of the createAgent middleware: the
 * `[Long-term Memory Context]` block for `query` (see recallMemoryContext),
 * with the past-conversation section appended when `episodes` is set.
 * `undefined` when nothing was found.
 */
export async function preloadMemoryBlock(
  settings: PreloadSettings,
  run: { config?: LangGraphRunnableConfig; query: string; withKeys: boolean },
): Promise<string | undefined> {
  const { namespace, store, episodes, limit, scoreThreshold, fillWithRecent, recentScanLimit, maxTokens } = settings;
  const { config, query, withKeys } = run;
  const { block } = await recallMemoryContext({ namespace, store, config, query, limit, scoreThreshold, fillWithRecent, recentScanLimit, maxTokens, withKeys });
  return episodes ? withEpisodeSection(block, { episodes, store, config, query, maxTokens }) : block;
}
