import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseStore, SearchItem } from "@langchain/langgraph-checkpoint";
import { EPISODES_CONTENT, estimateTokens, FACTS_CONTENT, formatMemoryContext, formatMemoryLine, MEMORY_CONTEXT_HEADER, memoryContextPreamble } from "./format-memories.js";
import type { Episode } from "../episodes/episode.js";
import { episodeTemplate, formatEpisodeSection, preloadEpisodeHits, type EpisodeMemoryOptions } from "../episodes/options.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { InvalidArgumentError } from "../errors.js";
import { templateFromLayout } from "../scope/layout-templates.js";
import { sharedFirstRound } from "../scope/shared-round.js";
import { resolveTurnScope, type TurnScope } from "../scope/turn-scope.js";
import { recallMemories, type RecallOptions } from "./recall.js";
import { resolveNamespace, threadIdOf, type NamespaceTemplate } from "../scope/namespace-template.js";
import { waitForPendingWrites } from "../scope/pending-writes.js";
import { resolveStore } from "../scope/resolve-store.js";

/** Options of {@link recallMemoryContext}: where to recall from, and recallMemories' own. */
export interface RecallMemoryContextOptions extends RecallOptions {
  /**
   * The namespace to recall from: a template such as `["users", "{user_id}"]`
   * (filled from `config`), or a plain namespace. Required unless `layout` is given.
   * @default the layout's facts namespace
   */
  namespace?: NamespaceTemplate;
  /**
   * The memory layout the app declared: the facts namespace is taken from it (a `namespace` that differs is refused).
   * @default undefined
   */
  layout?: MemoryLayout;
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
  const { namespace: declared, layout, store: given, config, ...recall } = options;
  const template = templateFromLayout("facts", declared, layout, "namespace");
  if (template === undefined) throw new InvalidArgumentError("recallMemoryContext needs a namespace (or a layout with a facts kind)");
  const namespace = resolveNamespace(template, config);
  const store = resolveStore(given, config);
  await waitForPendingWrites(store, namespace, { thread: threadIdOf(config) });
  const items = await recallMemories(store, namespace, recall);
  return { namespace, items, block: formatMemoryContext(items, { withKeys: recall.withKeys ?? false }) };
}

/** The preload settings callModel and the createAgent middleware share. */
export type PreloadSettings = Pick<RecallOptions, "limit" | "scoreThreshold" | "fillWithRecent" | "recentScanLimit" | "maxTokens"> & {
  namespace: NamespaceTemplate;
  store?: BaseStore;
  episodes?: EpisodeMemoryOptions;
  /** Kinds a layout adds with `recall` are preloaded too, each in its own section. @default undefined */
  layout?: MemoryLayout;
};

/** The turn scope of a preload's settings: the store and every namespace, resolved once. */
export function preloadScope(settings: PreloadSettings, config: LangGraphRunnableConfig | undefined): TurnScope {
  return resolveTurnScope({
    store: settings.store,
    config,
    facts: settings.namespace,
    episodes: settings.episodes ? episodeTemplate(settings.episodes) : undefined,
    layout: settings.layout,
  });
}

/** One section of a layout's added kind: its heading and one line per item, within `budget`. */
function kindSection(heading: string, items: SearchItem[], budget: number | undefined): string | undefined {
  let left = budget ?? Infinity;
  left -= estimateTokens(heading) + 1;
  const lines: string[] = [];
  for (const item of items) {
    const line = formatMemoryLine(item, false);
    const cost = estimateTokens(line) + 1;
    if (cost > left) continue;
    left -= cost;
    lines.push(line);
  }
  return lines.length === 0 ? undefined : [heading, ...lines].join("\n");
}

/**
 * The whole preload of callModel and of the createAgent middleware, for one
 * turn: the facts for `query` (see recallMemories), the past-conversation
 * section when `episodes` is set, and a section for each kind the layout
 * adds with `recall`, in one `[Long-term Memory Context]` block whose
 * opening sentence names what it holds, within `maxTokens` (facts first).
 * The scope (store and namespaces) is resolved once, and the first read of
 * every kind goes to the store as ONE batch, so the query is embedded once
 * for all of them. `undefined` when nothing was found.
 */
export async function preloadMemoryBlock(
  settings: PreloadSettings,
  run: { config?: LangGraphRunnableConfig; query: string; withKeys: boolean; scope?: TurnScope },
): Promise<string | undefined> {
  const { episodes, limit, scoreThreshold, fillWithRecent, recentScanLimit, maxTokens } = settings;
  const { config, query, withKeys } = run;
  const scope = run.scope ?? preloadScope(settings, config);
  await waitForPendingWrites(scope.store, scope.facts, { thread: scope.thread });
  const q = query.trim();
  const [facts, turns, ...added] = await sharedFirstRound<[SearchItem[], Episode[], ...SearchItem[][]]>(scope.store, [
    (store: BaseStore) => recallMemories(store, scope.facts, { query, limit, scoreThreshold, fillWithRecent, recentScanLimit, maxTokens, withKeys }),
    (store: BaseStore) => (episodes && scope.episodes ? preloadEpisodeHits(store, scope.episodes, query, { limit: episodes.preloadLimit }) : Promise.resolve([])),
    ...scope.recalled.map(({ kind, namespace }) => (store: BaseStore) => store.search(namespace, { ...(q ? { query: q } : {}), limit: kind.recall!.limit ?? 3 })),
  ] as never);
  const contents: string[] = [];
  const parts: string[] = [];
  if (facts.length > 0) {
    contents.push(FACTS_CONTENT);
    parts.push(...facts.map((item) => formatMemoryLine(item, withKeys)));
  }
  const tryAdd = (content: string, section: (budget: number | undefined) => string | undefined) => {
    const base = estimateTokens([MEMORY_CONTEXT_HEADER, memoryContextPreamble([...contents, content]), ...parts].join("\n"));
    const text = section(maxTokens === undefined ? undefined : maxTokens - base);
    if (text) {
      contents.push(content);
      parts.push(text);
    }
  };
  if (turns.length > 0) tryAdd(EPISODES_CONTENT, (budget) => formatEpisodeSection(turns, budget));
  scope.recalled.forEach(({ kind }, i) => {
    if (added[i]!.length > 0) tryAdd(`${kind.name} kept about the user`, (budget) => kindSection(kind.recall!.heading, added[i]!, budget));
  });
  if (parts.length === 0) return undefined;
  return [MEMORY_CONTEXT_HEADER, memoryContextPreamble(contents), ...parts].join("\n");
}
