import { hybridRank } from "../../embeddings/fusion.js";
import type { KeywordHit } from "../../embeddings/keyword-index.js";
import { matchesFilter } from "../filter.js";
import type { NamespaceGroup, StoredItem } from "./item-table.js";
import type { StoreState } from "./store-state.js";

/** How a search with a `query` ranks items. */
export type RetrievalMode = "vector" | "keyword" | "hybrid";

export interface SearchRequest {
  namespacePrefix: string[];
  filter?: Record<string, unknown>;
  limit: number;
  offset: number;
  query?: string;
  /** The query's embedding; absent when there is no index or embedding failed. */
  queryVector?: number[];
}

export interface SearchContext {
  now: number;
  retrieval: RetrievalMode;
  /** Candidate sets with at most this many vectors are scanned exactly. */
  exactScanThreshold: number;
}

export interface Ranked {
  item: StoredItem;
  score?: number;
}

const isLive = (item: StoredItem, now: number) => item.expiresAt === undefined || item.expiresAt > now;

/** Newest first; ties broken by namespace then key, so order is stable. */
const byRecency = (a: StoredItem, b: StoredItem) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Runs one search against the state. The plan:
 *
 * - no `query`: matching items, most recently updated first;
 * - `query` with vectors: cosine ranking. When the prefix and filter select
 *   few vectors (one user's memories), an exact scan over just those; when
 *   they select many, HNSW with a label filter, widening k and ef until
 *   enough distinct items come back. An item is ranked by its best vector.
 * - `query` without vectors (no index, or the embedder failed), or in
 *   keyword mode: BM25. Hybrid mode fuses both rankings.
 *
 * Items that cannot be scored come after the scored ones, without a score.
 */
export function runSearch(state: StoreState, req: SearchRequest, ctx: SearchContext): Ranked[] {
  const need = req.offset + req.limit;
  if (req.limit <= 0) return [];
  const groups = state.items.groupsUnder(req.namespacePrefix);
  const accepts = (item: StoredItem) => isLive(item, ctx.now) && matchesFilter(item.value, req.filter);

  if (req.query === undefined || req.query === null) {
    const all: StoredItem[] = [];
    for (const g of groups) for (const item of g.items.values()) if (accepts(item)) all.push(item);
    return all.sort(byRecency).slice(req.offset, need).map((item) => ({ item }));
  }

  const useVectors = req.queryVector !== undefined && state.vectors !== undefined && ctx.retrieval !== "keyword";
  const useKeywords = !useVectors || ctx.retrieval === "hybrid";
  const unrestricted = req.namespacePrefix.length === 0 && !req.filter;
  const total = groups.reduce((n, g) => n + g.items.size, 0);

  // Small selections are materialised; large ones are tested label by label.
  let candidates: StoredItem[] | undefined;
  if (!unrestricted && total <= ctx.exactScanThreshold * 8) {
    candidates = [];
    for (const g of groups) for (const item of g.items.values()) if (accepts(item)) candidates.push(item);
  }
  const inScope = candidates
    ? ((set) => (item: StoredItem) => set.has(item))(new Set(candidates))
    : unrestricted
      ? (item: StoredItem) => isLive(item, ctx.now)
      : ((nsKeys) => (item: StoredItem) => nsKeys.has(item.id.slice(0, item.id.indexOf("\n"))) && accepts(item))(
          new Set(groups.map((g) => JSON.stringify(g.namespace))),
        );

  const poolSize = useKeywords && useVectors ? Math.max(need * 3, 30) : need;
  let ranked: Ranked[] = [];
  let vectorRanked: Ranked[] = [];
  const q = useVectors ? normalise(req.queryVector!) : [];
  if (useVectors) {
    const vectorCount = candidates?.reduce((n, it) => n + it.vectors.length, 0) ?? Infinity;
    vectorRanked =
      vectorCount <= ctx.exactScanThreshold
        ? exactScan(state, q, candidates!, poolSize)
        : annSearch(state, q, poolSize, unrestricted ? undefined : inScope, inScope, selectivity(state, candidates, total));
    ranked = vectorRanked;
  }
  if (useKeywords) {
    const byId = new Map<string, StoredItem>();
    const keywordHits = keywordSearch(state, req.query, groups, !!candidates, poolSize, (id) => {
      const item = state.items.byId(id);
      if (!item || !inScope(item)) return false;
      byId.set(id, item);
      return true;
    });
    if (!useVectors) {
      ranked = keywordHits.map((h) => ({ item: byId.get(h.id)!, score: h.score / (1 + h.score) }));
    } else {
      const vecById = new Map(vectorRanked.map((r) => [r.item.id, r]));
      const fused = hybridRank({
        query: req.query,
        vectorHits: vectorRanked.map((r) => ({ id: r.item.id, score: r.score ?? 0 })),
        keywordHits,
      });
      ranked = fused.map((h) => vecById.get(h.id) ?? scoreItem(state, q, byId.get(h.id)!));
    }
  }

  if (ranked.length < need) {
    // Fill with items that have nothing to rank them by, newest first.
    const seen = new Set(ranked.map((r) => r.item));
    const rest: StoredItem[] = [];
    const pool = candidates ?? groups.flatMap((g) => [...g.items.values()].filter(accepts));
    for (const item of pool) if (!seen.has(item) && (useVectors ? item.vectors.length === 0 : true)) rest.push(item);
    rest.sort(byRecency);
    ranked = ranked.concat(rest.slice(0, need - ranked.length).map((item) => ({ item })));
  }
  return ranked.slice(req.offset, need);
}

/** Selections spanning at most this many namespaces use per-namespace keyword indexes. */
const MAX_NAMESPACE_INDEXES = 8;

/**
 * BM25 hits in scope. A small selection over a few namespaces (one user's
 * memories) is ranked with those namespaces' own indexes, merged by score, so
 * it never pays for indexing the whole store; anything larger uses the
 * store-wide index.
 */
function keywordSearch(
  state: StoreState,
  query: string,
  groups: NamespaceGroup[],
  small: boolean,
  limit: number,
  accept: (id: string) => boolean,
): KeywordHit[] {
  if (!small || groups.length > MAX_NAMESPACE_INDEXES) return state.keywordIndex().search(query, { limit, candidates: accept });
  return groups
    .flatMap((g) => state.namespaceKeywordIndex(g).search(query, { limit, candidates: accept }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

export function normalise(v: readonly number[]): number[] {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s) || 1;
  return v.map((x) => x / n);
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Best cosine over an item's vectors (vectors in the index are normalised). */
function scoreItem(state: StoreState, q: number[], item: StoredItem): Ranked {
  if (item.vectors.length === 0 || !state.vectors) return { item };
  let best = -Infinity;
  for (const { label } of item.vectors) best = Math.max(best, dot(q, state.vectors.vector(label)));
  return { item, score: best };
}

function exactScan(state: StoreState, q: number[], candidates: StoredItem[], k: number): Ranked[] {
  const scored: Ranked[] = [];
  for (const item of candidates) if (item.vectors.length) scored.push(scoreItem(state, q, item));
  return scored.sort((a, b) => b.score! - a.score!).slice(0, k);
}

/** Estimated fraction of the index's vectors that a search may return. */
function selectivity(state: StoreState, candidates: StoredItem[] | undefined, total: number): number {
  const live = state.vectors?.liveCount ?? 0;
  if (live === 0) return 1;
  if (candidates) return candidates.reduce((n, it) => n + it.vectors.length, 0) / live;
  return Math.min(1, total / Math.max(1, state.items.size));
}

/**
 * HNSW search, keeping each item's best vector. Widens k (and ef with it)
 * until `k` distinct items in scope are found or the index is exhausted.
 */
function annSearch(
  state: StoreState,
  q: number[],
  k: number,
  accept: ((item: StoredItem) => boolean) | undefined,
  inScope: (item: StoredItem) => boolean,
  selected: number,
): Ranked[] {
  const vectors = state.vectors!;
  const filter = accept
    ? (label: number) => {
        const owner = state.owners[label];
        return owner !== undefined && accept(owner);
      }
    : undefined;
  let kk = k;
  for (;;) {
    const best = new Map<StoredItem, number>();
    // A filter that passes a fraction f of the graph needs a beam about 1/f
    // wider to meet as many accepted vectors as an unfiltered walk.
    const base = Math.max(vectors.settings.efSearch, kk);
    const ef = selected >= 1 ? base : Math.min(vectors.liveCount, Math.ceil(base / Math.max(selected, 1e-3)));
    for (const hit of vectors.search(q, kk, filter, ef)) {
      const owner = state.owners[hit.label];
      if (!owner || !inScope(owner)) continue;
      if (!best.has(owner) || best.get(owner)! < hit.score) best.set(owner, hit.score);
    }
    if (best.size >= k || kk >= vectors.liveCount) {
      return [...best].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score).slice(0, k);
    }
    kk = Math.min(vectors.liveCount, kk * 2);
  }
}
