import { checkBoolean, checkKnownKeys, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseStore, GetOperation, Item, SearchItem } from "@langchain/langgraph-checkpoint";
import type { MemorySearchOperation } from "../store/operations.js";
import { InvalidArgumentError } from "../errors.js";
import { episodeKey, toEpisode, type Episode } from "./episode.js";
import { checkRankOptions, neighbourWindow, rerankEpisodes, type EpisodeRankOptions } from "./rank.js";

/** Options for {@link searchEpisodes}. */
export interface SearchEpisodesOptions extends EpisodeRankOptions {
  /** What to look for, e.g. the user's question. */
  query: string;
  /**
   * Most turns to return.
   * @default 5
   */
  limit?: number;
  /**
   * Also return each turn's neighbours (the turn before and after), so the
   * exchange can be read.
   * @default false
   */
  neighbours?: boolean;
  /**
   * Only turns of this thread.
   * @default undefined (all threads)
   */
  threadId?: string;
  /**
   * How many of the store's hits are re-ranked (from each first-stage
   * ranking: the hybrid one and, with `vectorWeight`, the vector one).
   * @default max(8 × limit, 80)
   */
  pool?: number;
  /**
   * Re-rank the store's hits, scoring each turn with its neighbours (the
   * reply after a matching turn, the question before it: {@link rerankEpisodes}).
   * `false` returns the store's order.
   * @default true
   */
  rerank?: boolean;
  /**
   * Weight of a second first-stage ranking, by vector alone, of the same
   * query: the store's hybrid search leans on BM25 when the question names
   * someone (every speaker's name is in half the turns), which pushes
   * turns that only mean the same out of the pool. Each of the vector
   * ranking's `pool` hits at rank r earns `vectorWeight / (k + r)` beside
   * the hybrid one's `1 / (k + r)`. Both searches run in one batch, so the
   * query is embedded once. Needs a store that honours a search's own
   * `retrieval` (HNSWStore, PostgresMemoryStore); other stores return their
   * usual ranking twice, which leaves the order as it was (with
   * `contextWeight` 0). Chosen on both development sets' tune splits and
   * kept because it helped both held-out splits (docs/episodes.md). `0`
   * turns it off (one search, as before).
   * @default 0.5
   */
  vectorWeight?: number;
}

/** The default {@link SearchEpisodesOptions.vectorWeight}. */
export const DEFAULT_VECTOR_WEIGHT = 0.5;

function checkLimit(name: string, v: number | undefined): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new InvalidArgumentError(`searchEpisodes ${name} must be an integer >= 1, got ${String(v)}`);
}

/**
 * Finds the past turns that answer `query` in a user's episode namespace:
 * the store ranks the turns twice in one batch (`"<speaker>: <text>"`, one
 * vector each: its hybrid ranking, vectors and keywords, and one by vector
 * alone; the query through the store's episodes query adapter), then {@link rerankEpisodes} scores each turn with its
 * neighbours, so the reply to a turn that names the topic is found too.
 *
 * @example
 * ```ts
 * const turns = await searchEpisodes(store, ["episodes", userId], { query: "when did I start the new job?", neighbours: true });
 * ```
 */
export async function searchEpisodes(store: BaseStore, namespace: string[], options: SearchEpisodesOptions): Promise<Episode[]> {
  if (!store || typeof store.search !== "function") throw new InvalidArgumentError("searchEpisodes needs a BaseStore");
  checkKnownKeys(options, OPTION_KEYS.searchEpisodes);
  if (typeof options?.query !== "string") throw new InvalidArgumentError("searchEpisodes needs `query`, a string");
  checkLimit("limit", options.limit);
  checkLimit("pool", options.pool);
  checkRankOptions(options, "searchEpisodes");
  if (options.vectorWeight !== undefined && (typeof options.vectorWeight !== "number" || !Number.isFinite(options.vectorWeight) || options.vectorWeight < 0)) {
    throw new InvalidArgumentError(`searchEpisodes vectorWeight must be a finite number >= 0, got ${String(options.vectorWeight)}`);
  }
  checkBoolean(options.neighbours, "neighbours");
  checkBoolean(options.rerank, "rerank");
  checkString(options.threadId, "threadId");
  const limit = options.limit ?? 5;
  const query = options.query.trim();
  if (query === "") return [];
  const rerank = options.rerank ?? true;
  const pool = rerank ? Math.max(options.pool ?? Math.max(8 * limit, 80), limit) : limit;
  const filter = options.threadId === undefined ? undefined : { threadId: options.threadId };
  const vectorWeight = rerank ? (options.vectorWeight ?? DEFAULT_VECTOR_WEIGHT) : 0;
  // Turns are searched with the episodes' query adapter (a store with adapters off ignores it).
  const ops: MemorySearchOperation[] = [{ namespacePrefix: namespace, query, limit: pool, offset: 0, filter, queryAdapter: "episodes" }];
  if (vectorWeight > 0) ops.push({ namespacePrefix: namespace, query, limit: pool, offset: 0, filter, retrieval: "vector", queryAdapter: "episodes" });
  const [episodes, vectorEpisodes = []] = ((await store.batch(ops)) as SearchItem[][]).map(asEpisodes);
  const more = vectorWeight > 0 ? [{ hits: vectorEpisodes, weight: vectorWeight }] : [];
  const window = rerank ? neighbourWindow(options) : 0;
  const around = window > 0 ? await neighboursOf(store, namespace, [...episodes, ...vectorEpisodes], window, options.threadId) : undefined;
  const picked = rerank ? rerankEpisodes(query, episodes, limit, options, around, more) : episodes.slice(0, limit);
  if (options.neighbours) await addNeighbours(store, namespace, picked);
  return picked;
}

const asEpisodes = (hits: SearchItem[]): Episode[] =>
  hits.map((h) => toEpisode({ key: h.key, value: h.value, score: h.score })).filter((e): e is Episode => e !== undefined);

/** The turns right before and after each hit that are not hits themselves, by key, read in one batch of gets. */
async function neighboursOf(store: BaseStore, namespace: string[], hits: Episode[], window: number, threadId: string | undefined): Promise<Map<string, Episode>> {
  const have = new Set(hits.map((h) => h.key));
  const keys = new Set<string>();
  for (const h of hits) {
    for (let d = 1; d <= window; d++) {
      for (const turn of [h.turn - d, h.turn + d]) {
        const key = episodeKey(h.threadId, turn);
        if (turn >= 0 && !have.has(key)) keys.add(key);
      }
    }
  }
  const out = new Map<string, Episode>();
  if (keys.size === 0) return out;
  const ops: GetOperation[] = [...keys].map((key) => ({ namespace, key }));
  const items = (await store.batch(ops)) as Array<Item | null>;
  for (const item of items) {
    const e = item ? toEpisode(item) : undefined;
    if (e && (threadId === undefined || e.threadId === threadId)) out.set(e.key, e);
  }
  return out;
}

/** Fills `before` and `after` of each episode with one batch of gets. */
export async function addNeighbours(store: BaseStore, namespace: string[], episodes: Episode[]): Promise<void> {
  const ops: GetOperation[] = [];
  for (const e of episodes) {
    ops.push({ namespace, key: episodeKey(e.threadId, e.turn - 1) }, { namespace, key: episodeKey(e.threadId, e.turn + 1) });
  }
  if (ops.length === 0) return;
  const items = (await store.batch(ops)) as Array<Item | null>;
  episodes.forEach((e, i) => {
    const before = items[2 * i] ? toEpisode(items[2 * i]!) : undefined;
    const after = items[2 * i + 1] ? toEpisode(items[2 * i + 1]!) : undefined;
    if (before && e.turn > 0) e.before = { speaker: before.speaker, text: before.text };
    if (after) e.after = { speaker: after.speaker, text: after.text };
  });
}
