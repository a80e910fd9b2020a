import { capDownTheList, hybridRank, RANK_POOL } from "../../embeddings/fusion.js";
import { RANKING } from "../../embeddings/ranking-defaults.js";
import type { KeywordHit } from "../../embeddings/keyword-index.js";
import { matchesFilter } from "../filter.js";
import { liftReplacementScores, supersededAfterReplacement, supersedesKey } from "../superseded.js";
import type { NamespaceGroup, StoredItem } from "./item-table.js";
import type { StoreState } from "./store-state.js";
import { hitsOf, type VectorHit } from "./vector-index.js";
import type { RetrievalMode } from "../retrieval-mode.js";

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
  /**
   * HNSW walks already made in this batch, by {@link walkKey}: two searches
   * of one batch with the same query, prefix, filter and pool (a hybrid and
   * a vector-only ranking of the same question) walk the graph once. The
   * batch clears it when it writes.
   */
  walks?: Map<string, Ranked[]>;
}

export interface Ranked {
  item: StoredItem;
  score?: number;
}

const isLive = (item: StoredItem, now: number) => item.expiresAt === undefined || item.expiresAt > now;

/** Newest first; ties broken by namespace then key, so order is stable. */
const byRecency = (a: StoredItem, b: StoredItem) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);


/** Group ids marked for the current search (label → group filter without Sets or strings). */
let groupMarks = new Uint32Array(1024);
let markEpoch = 0;

function markGroups(groups: NamespaceGroup[]): number {
  if (++markEpoch === 0xffffffff) {
    groupMarks.fill(0);
    markEpoch = 1;
  }
  for (const g of groups) {
    if (g.id >= groupMarks.length) {
      const grown = new Uint32Array(Math.max(g.id + 1, groupMarks.length * 2));
      grown.set(groupMarks);
      groupMarks = grown;
    }
    groupMarks[g.id] = markEpoch;
  }
  return markEpoch;
}

/** How a search with a `query` will run: which rankings, and over what. */
export interface SearchPlan {
  useVectors: boolean;
  useKeywords: boolean;
  /** Items under the prefix. */
  total: number;
  /** The namespace groups in scope; undefined when the prefix covers every item. */
  groups?: NamespaceGroup[];
  /** The live, matching items in scope, listed only when few enough for an exact scan. */
  candidates?: StoredItem[];
  /** Every candidate is ranked (no HNSW walk). */
  exact: boolean;
}

/** Plans a search that has a `query` (see {@link runSearch}). */
export function planSearch(state: StoreState, req: SearchRequest, ctx: SearchContext): SearchPlan {
  const accepts = (item: StoredItem) => isLive(item, ctx.now) && matchesFilter(item.value, req.filter);
  const useVectors = req.queryVector !== undefined && state.vectors !== undefined && ctx.retrieval !== "keyword";
  const useKeywords = !useVectors || ctx.retrieval === "hybrid";
  const total = state.items.countUnder(req.namespacePrefix);
  // A prefix that covers every item restricts nothing.
  const unrestricted = !req.filter && total === state.items.size;
  const groups = unrestricted ? undefined : state.items.groupsUnder(req.namespacePrefix);

  // Only a selection small enough for an exact scan is listed item by item.
  let candidates: StoredItem[] | undefined;
  if (groups && total <= ctx.exactScanThreshold) {
    candidates = [];
    for (const g of groups) for (const item of g.items.values()) if (accepts(item)) candidates.push(item);
  }
  const exact = candidates !== undefined && (!useVectors || candidates.reduce((n, it) => n + it.vectors.length, 0) <= ctx.exactScanThreshold);
  return { useVectors, useKeywords, total, groups, candidates, exact };
}

/**
 * Whether running `plan` needs the HNSW graph in memory: an HNSW walk does,
 * and so does an exact scan of a sealed index (whose vectors cannot be read
 * from its file). While a store opens, the rest runs before the graph loads.
 */
export function planNeedsGraph(state: StoreState, plan: SearchPlan): boolean {
  const vectors = state.vectors;
  if (!plan.useVectors || !vectors || vectors.loaded) return false;
  return !plan.exact || !vectors.readsFromFile;
}

/** Whether an item is in a search's scope (its groups marked for this call: build it right before use). */
function scopeTest(state: StoreState, req: SearchRequest, ctx: SearchContext, groups: NamespaceGroup[] | undefined): (item: StoredItem) => boolean {
  if (!groups) return (item) => isLive(item, ctx.now);
  const epoch = markGroups(groups);
  return req.filter
    ? (item) => groupMarks[item.gid!] === epoch && isLive(item, ctx.now) && matchesFilter(item.value, req.filter)
    : (item) => groupMarks[item.gid!] === epoch && isLive(item, ctx.now);
}

/** Exact plans rank everything they select; HNSW plans a fixed pool. */
const poolOf = (plan: SearchPlan, need: number) => (plan.exact ? Infinity : Math.max(RANK_POOL, need));

/** A search's keyword side: its BM25 hits in scope, and the items they name. */
export interface KeywordSide {
  hits: KeywordHit[];
  byId: Map<string, StoredItem>;
}

/**
 * The keyword side of a search with a `query` under `plan`, as
 * {@link runSearch} ranks it (empty when the plan uses no keywords). It needs
 * no query vector: a store can run it while the query is being embedded,
 * and hand it to runSearch with the same plan.
 */
export function keywordSide(state: StoreState, req: SearchRequest, ctx: SearchContext, plan: SearchPlan): KeywordSide {
  const byId = new Map<string, StoredItem>();
  if (!plan.useKeywords) return { hits: [], byId };
  const inScope = scopeTest(state, req, ctx, plan.groups);
  const limit = plan.exact ? plan.candidates!.length : poolOf(plan, req.offset + req.limit);
  const hits = keywordSearch(state, req.query!, plan.groups, plan.exact, limit, (id, group) => {
    const item = group ? state.items.inGroup(group, id) : state.items.byId(id);
    if (!item || !inScope(item)) return false;
    byId.set(id, item);
    return true;
  });
  return { hits, byId };
}

/** The key of an HNSW walk in {@link SearchContext.walks}: what decides its result within one batch. */
/** One id per query vector array (a batch makes one per query and adapter setting). */
const vectorIds = new WeakMap<number[], number>();
let lastVectorId = 0;
const vectorId = (v: number[] | undefined) => {
  if (v === undefined) return 0;
  let id = vectorIds.get(v);
  if (id === undefined) vectorIds.set(v, (id = ++lastVectorId));
  return id;
};
const walkKey = (req: SearchRequest, pool: number) => JSON.stringify([vectorId(req.queryVector), req.namespacePrefix, req.filter ?? null, pool]);

/** {@link annSearch}, or the same walk made earlier in the batch (a copy of its list). */
function sharedWalk(ctx: SearchContext, req: SearchRequest, pool: number, walk: () => Ranked[]): Ranked[] {
  if (!ctx.walks) return walk();
  const key = walkKey(req, pool);
  let ranked = ctx.walks.get(key);
  if (!ranked) ctx.walks.set(key, (ranked = walk()));
  return [...ranked];
}

/**
 * Runs one search against the state. The plan:
 *
 * - no `query`: matching items, most recently updated first;
 * - `query` with vectors: cosine ranking. When the prefix and filter select
 *   few vectors (one user's memories), an exact scan over all of them; when
 *   they select many, HNSW (with a label → namespace-group filter unless the
 *   prefix covers every item), widening k and ef until enough distinct items
 *   come back. An item is ranked by its best vector.
 * - `query` without vectors (no index, or the embedder failed), or in
 *   keyword mode: BM25. Hybrid mode fuses both rankings (see `hybridRank`).
 *
 * Scores never increase down the list. Vector mode: the cosine similarity.
 * Keyword mode: BM25 mapped to [0, 1) as `s / (1 + s)`. Hybrid mode: the
 * fused relevance, which is the item's cosine similarity capped by the score
 * of the result above it; it is never above the item's own cosine, so a
 * floor `t` admits no item less similar than `t`, as in vector mode.
 *
 * Items that cannot be scored come after the scored ones, without a score,
 * newest first.
 */
export function runSearch(state: StoreState, req: SearchRequest, ctx: SearchContext, plan?: SearchPlan, keyword?: KeywordSide): Ranked[] {
  const need = req.offset + req.limit;
  if (req.limit <= 0) return [];
  const accepts = (item: StoredItem) => isLive(item, ctx.now) && matchesFilter(item.value, req.filter);

  if (req.query === undefined || req.query === null) {
    const all: StoredItem[] = [];
    for (const g of state.items.groupsUnder(req.namespacePrefix)) for (const item of g.items.values()) if (accepts(item)) all.push(item);
    return all.sort(byRecency).slice(req.offset, need).map((item) => ({ item }));
  }

  const planned = plan ?? planSearch(state, req, ctx);
  const { useVectors, total, groups, candidates, exact } = planned;
  // The keyword side first (it marks the groups for itself), or as the store ran it while the query was embedded.
  const { hits: keywordHits, byId } = keyword ?? keywordSide(state, req, ctx, planned);
  const inScope = scopeTest(state, req, ctx, groups);
  const pool = poolOf(planned, need);

  let ranked: Ranked[] = [];
  if (useVectors) {
    const q = normalise(req.queryVector!);
    const vectorRanked = exact
      ? exactScan(state, q, candidates!)
      : sharedWalk(ctx, req, pool, () => annSearch(state, q, pool, groups ? inScope : undefined, inScope, groups ? total / Math.max(1, state.items.size) : 1));
    ranked = keywordHits.length > 0 ? fuse(state, q, req.query, vectorRanked, keywordHits, byId) : vectorRanked;
  } else {
    ranked = keywordHits.map((h) => ({ item: byId.get(h.id)!, score: h.score / (1 + h.score) }));
  }
  ranked = replacementsFirst(ranked);

  if (ranked.length < need) {
    // Fill with items that have nothing to rank them by, newest first.
    const seen = new Set(ranked.map((r) => r.item));
    const rest: StoredItem[] = [];
    const consider = (item: StoredItem) => {
      if (!seen.has(item) && (useVectors ? item.vectors.length === 0 : true)) rest.push(item);
    };
    if (candidates) candidates.forEach(consider);
    else for (const g of groups ?? state.items.groupsAll()) for (const item of g.items.values()) if (accepts(item)) consider(item);
    rest.sort(byRecency);
    ranked = ranked.concat(rest.slice(0, need - ranked.length).map((item) => ({ item })));
  }
  return ranked.slice(req.offset, need);
}

/**
 * Hybrid ranking: the fused order, scored with the fused relevance (each
 * item's cosine, capped by the score above it). Fused items without vectors
 * go after the scored ones.
 */
function fuse(state: StoreState, q: number[], query: string, vectorRanked: Ranked[], keywordHits: KeywordHit[], byId: Map<string, StoredItem>): Ranked[] {
  const vecById = new Map<string, Ranked>();
  const vectorHits: { id: string; score: number }[] = [];
  for (const r of vectorRanked) {
    vecById.set(r.item.id, r);
    vectorHits.push({ id: r.item.id, score: r.score ?? 0 });
  }
  return capDownTheList(hybridRank({ query, vectorHits, keywordHits }, RANKING.fusion).map((h) => vecById.get(h.id) ?? scoreItem(state, q, byId.get(h.id)!)));
}

/** A replaced memory kept behind its replacement (see supersededAfterReplacement); both share a namespace. */
function replacementsFirst(ranked: Ranked[]): Ranked[] {
  // Each value is read once; when none names a replacement (most searches), there is nothing to reorder.
  let replacedIds: Map<Ranked, string> | undefined;
  for (const r of ranked) {
    const old = supersedesKey(r.item.value);
    if (old !== undefined) (replacedIds ??= new Map()).set(r, r.item.id.slice(0, r.item.id.length - r.item.key.length) + old);
  }
  if (!replacedIds) return capDownTheList(ranked);
  const id = (r: Ranked) => r.item.id;
  const replaced = (r: Ranked) => replacedIds.get(r);
  return capDownTheList(liftReplacementScores(supersededAfterReplacement(ranked, id, replaced), id, replaced));
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
  groups: NamespaceGroup[] | undefined,
  small: boolean,
  limit: number,
  accept: (id: string, group?: NamespaceGroup) => boolean,
): KeywordHit[] {
  if (!groups || !small || groups.length > MAX_NAMESPACE_INDEXES) return state.keywordIndex().search(query, { limit, candidates: (id) => accept(id) });
  // A namespace's own index holds only its items: they are found in that group, without the store-wide id map.
  return groups
    .flatMap((g) => state.namespaceKeywordIndex(g).search(query, { limit, candidates: (id) => accept(id, g) }))
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

/** Every candidate with vectors, by cosine, best first (ties by id, so the order is total). */
function exactScan(state: StoreState, q: number[], candidates: StoredItem[]): Ranked[] {
  const labels: number[] = [];
  for (const item of candidates) for (const v of item.vectors) labels.push(v.label);
  const vecs = state.vectors!.vectors(labels); // one bulk read for what the cache lacks
  const scored: Ranked[] = [];
  let at = 0;
  for (const item of candidates) {
    if (item.vectors.length === 0) continue;
    let best = -Infinity;
    for (let j = 0; j < item.vectors.length; j++) best = Math.max(best, dot(q, vecs[at++]!));
    scored.push({ item, score: best });
  }
  return scored.sort((a, b) => b.score! - a.score! || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0));
}

/**
 * The live item of `group` whose best vector is most similar to `vector`
 * (cosine), by an exact scan of the group alone: no ranking, no keyword side.
 * Undefined when no live item there has a vector.
 */
export function nearestInGroup(state: StoreState, group: NamespaceGroup, vector: readonly number[], now: number): { item: StoredItem; score: number } | undefined {
  if (!state.vectors) return undefined;
  const candidates: StoredItem[] = [];
  for (const item of group.items.values()) if (item.vectors.length > 0 && isLive(item, now)) candidates.push(item);
  if (candidates.length === 0) return undefined;
  const best = exactScan(state, normalise(vector), candidates)[0]!;
  return { item: best.item, score: best.score! };
}

/** Whether every distance is finite and none is smaller than the one before (hnswlib's usual answer). */
function finiteAscending(distances: number[]): boolean {
  for (let i = 0; i < distances.length; i++) {
    const d = distances[i]!;
    if (!Number.isFinite(d) || (i > 0 && d < distances[i - 1]!)) return false;
  }
  return true;
}

/** Hits by score, best first: hnswlib returns them so, and a check costs less than a sort with a comparator. */
function bestFirst(hits: VectorHit[]): VectorHit[] {
  for (let i = 1; i < hits.length; i++) if (hits[i - 1]!.score < hits[i]!.score) return hits.sort((a, b) => b.score - a.score);
  return hits;
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
        const owner = state.owner(label);
        return owner !== undefined && accept(owner);
      }
    : undefined;
  let kk = k;
  for (;;) {
    // A filter that passes a fraction f of the graph needs a beam about 1/f
    // wider to meet as many accepted vectors as an unfiltered walk.
    const base = Math.max(vectors.settings.efSearch, kk);
    const ef = selected >= 1 ? base : Math.min(vectors.liveCount, Math.ceil(base / Math.max(selected, 1e-3)));
    const out: Ranked[] = [];
    // Only an item with several vectors can come back twice (a label comes back once).
    let seen: Set<StoredItem> | undefined;
    const keep = (label: number, score: number) => {
      const owner = state.owner(label);
      if (!owner || !inScope(owner)) return;
      if (owner.vectors.length > 1) {
        if ((seen ??= new Set()).has(owner)) return;
        seen.add(owner);
      }
      out.push({ item: owner, score });
    };
    // Best first, so an item's first hit is its best vector. hnswlib answers so, with finite distances:
    // its two arrays are read as they are, with no object per hit; otherwise they are checked and sorted.
    const answer = vectors.knn(q, kk, filter, ef);
    const { neighbors, distances } = answer;
    if (finiteAscending(distances)) for (let i = 0; i < neighbors.length; i++) keep(neighbors[i]!, 1 - distances[i]!);
    else for (const hit of bestFirst(hitsOf(answer))) keep(hit.label, hit.score);
    if (out.length >= k || kk >= vectors.liveCount) return out.length > k ? out.slice(0, k) : out;
    kk = Math.min(vectors.liveCount, kk * 2);
  }
}
