import type { SearchItem } from "@langchain/langgraph-checkpoint";
import { capDownTheList, hybridRank, RANK_POOL } from "../../embeddings/fusion.js";
import { RANKING } from "../../embeddings/ranking-defaults.js";
import { KeywordIndex, type KeywordDocument } from "../../embeddings/keyword-index.js";
import { tokenize } from "../../embeddings/tokenize.js";
import { matchesFilter } from "../filter.js";
import { liftReplacementScores, supersededAfterReplacement, supersedesKey } from "../superseded.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import { filterSql } from "./sql-filter.js";
import { everyVector, idPair, literals, liveSql, nsLabels, opaque, Params, rowId, scopeSql, vectorParam, type Queryable, type Tables } from "./sql.js";
import type { PlanCache } from "./plan-cache.js";
import type { PreparedStatements } from "./prepared.js";
import type { KeywordDocuments } from "./keyword-documents.js";
import { withWalkSettings, type WalkSettingsMode } from "./walk-settings.js";
import type { QueryResult, QueryResultRow } from "pg";
import { keywordTexts } from "./write.js";

/** An item row as selected from the items table. */
export interface ItemRow {
  ns: string;
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** Set when the item has a TTL (a read restarts it). */
  ttl_minutes: number | null;
}

/**
 * The columns a result needs. Every column costs the driver per statement
 * (a parser looked up per column of each RowDescription, a value per row),
 * so ranked pages read these only.
 */
export const PAGE_COLUMNS = "i.ns, i.key, i.value, i.created_at, i.updated_at, i.ttl_minutes";
/**
 * What a small selection's ranking reads of every item in scope (see
 * scopeRowsSql): its id, the version of its row (ROW_VERSION), the key it
 * replaces (`value.supersedes` when that is a string), and its best distance.
 * Values are read for the page only.
 */
interface ScopeRow {
  ns: string;
  key: string;
  v: string;
  sup: string | null;
  d: number | null;
}
/**
 * The version of an item's row, for KeywordDocuments: the transaction that
 * wrote it (`xmin`, new with every write of the row by any process) and its
 * update time, so that a transaction id that wrapped around does not make an
 * old version look current.
 */
const ROW_VERSION = "i.xmin::text || ':' || i.updated_at AS v";
const SCOPE_COLUMNS = `i.ns, i.key, ${ROW_VERSION}, CASE WHEN jsonb_typeof(i.value->'supersedes') = 'string' THEN i.value->>'supersedes' END AS sup`;
/** PAGE_COLUMNS of the index walk's merged branches (`u`). */
const WALK_COLUMNS = PAGE_COLUMNS.replace(/\bi\./g, "u.");

export function toSearchItem(row: ItemRow, score?: number): SearchItem {
  const out: SearchItem = {
    namespace: nsLabels(row.ns),
    key: row.key,
    value: row.value,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
  if (score !== undefined) out.score = score;
  return out;
}

export interface PgSearchRequest {
  namespacePrefix: string[];
  filter?: Record<string, unknown>;
  limit: number;
  offset: number;
  query?: string | null;
  queryVector?: number[];
}

export interface PgSearchContext {
  db: Queryable;
  tables: Tables;
  now: number;
  retrieval: RetrievalMode;
  hasVectors: boolean;
  /** The store's default index fields (null without an index). */
  fields: string[] | null;
  /** `hnsw.ef_search` of an index walk (raised to the walk's depth unless `efExplicit`). */
  efSearch: number;
  /** The caller set `hnsw.efSearch`: the walk uses it as it is (iterative scans fill the page). */
  efExplicit?: boolean;
  exactScanThreshold: number;
  /** The server's pgvector has iterative scans (0.8 and later): a walk uses them when it needs them (see annVectors). */
  iterativeScan: boolean;
  /** The batch runs in a transaction (its writes); reads run on a connection outside one. */
  inTransaction: boolean;
  /** How the index walk gets its settings (see WalkSettingsMode). */
  walkMode?: WalkSettingsMode;
  /** Recent small/large decisions, to skip the count (none: count every time). */
  plans?: PlanCache;
  /** Named prepared statements (none: every statement unnamed). */
  statements?: PreparedStatements;
  /** Keyword documents kept between searches (none: a small selection's BM25 reads every item's value). */
  keywordDocuments?: KeywordDocuments;
}

interface Ranked {
  id: string;
  score?: number;
}

/** Selects items in scope: prefix (whole labels), live, filter. */
function scopeWhere(req: PgSearchRequest, ctx: PgSearchContext, params: Params): string {
  return `${scopeSql("i.ns", req.namespacePrefix, params)} AND ${liveSql("i", ctx.now, params)} AND ${filterSql("i.value", req.filter, params)}`;
}

/**
 * One search, planned as HNSWStore plans it:
 *
 * - no `query`: matching items, most recently updated first;
 * - a small selection (at most `exactScanThreshold` items, e.g. one user's
 *   memories): every vector of those items is compared (exact), and keyword
 *   ranking is BM25 over those items, exactly as HNSWStore ranks them;
 * - a large selection: the pgvector HNSW index (`ORDER BY embedding <=> q
 *   LIMIT k`, with iterative index scans so that a filter still fills k, and
 *   widening k otherwise), and PostgreSQL full-text search (`ts_rank`) over
 *   the same terms for the keyword side.
 *
 * Hybrid mode fuses both with `hybridRank`; `score` is the cosine similarity
 * when the item has vectors (keyword-only: BM25 mapped to s/(1+s)). Items
 * that cannot be scored follow, newest first, unscored.
 */
export async function runSearch(req: PgSearchRequest, ctx: PgSearchContext): Promise<{ results: SearchItem[]; ids: [string, string][] }> {
  const need = req.offset + req.limit;
  if (req.limit <= 0) return { results: [], ids: [] };
  const { tables: t } = ctx;
  const rows = new Map<string, ItemRow>();
  const keep = (row: ItemRow) => {
    if (!matchesFilter(row.value, req.filter)) return false;
    rows.set(rowId(row.ns, row.key), row);
    return true;
  };

  if (req.query === undefined || req.query === null) {
    const p = new Params();
    const r = await runStatement<ItemRow>(
      ctx,
      `SELECT ${PAGE_COLUMNS} FROM ${t.items} i WHERE ${scopeWhere(req, ctx, p)} ORDER BY i.updated_at DESC, i.ns, i.key LIMIT ${p.add(req.limit)} OFFSET ${p.add(req.offset)}`,
      p.values,
    );
    return finish(r.rows.filter(keep).map((row) => ({ id: rowId(row.ns, row.key) })), rows);
  }

  const useVectors = req.queryVector !== undefined && ctx.hasVectors && ctx.retrieval !== "keyword";
  const useKeywords = !useVectors || ctx.retrieval === "hybrid";
  const unrestricted = req.namespacePrefix.length === 0 && !req.filter;
  const q = useVectors ? vectorParam(req.queryVector!) : Buffer.alloc(0);

  // Small selections are ranked exactly, from one statement (see scopeRowsSql).
  let small = false;
  /** Items in scope (live, filter), counted up to exactScanThreshold + 1 (none for an unrestricted search). */
  let inScope = Number.POSITIVE_INFINITY;
  /** A small selection with a keyword side: every item in scope, as its ranking reads it. */
  let scopeRows: ScopeRow[] | undefined;
  /** The selection, as the plan cache knows it (see PlanCache). */
  const planKey = JSON.stringify([req.namespacePrefix, req.filter ?? null]);
  if (!unrestricted) {
    const cached = ctx.plans?.get(planKey);
    if (cached !== undefined) inScope = cached;
    else {
      const p = new Params();
      const r = await runStatement<{ n: number }>(
        ctx,
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${t.items} i WHERE ${scopeWhere(req, ctx, p)} LIMIT ${p.add(ctx.exactScanThreshold + 1)}) c`,
        p.values,
      );
      inScope = r.rows[0].n;
      ctx.plans?.set(planKey, inScope);
    }
    small = inScope <= ctx.exactScanThreshold;
  }
  // As HNSWStore plans: exact plans rank everything they select, index walks a
  // fixed pool, so page N is the same slice of one ranking whatever the page size.
  const poolSize = small ? ctx.exactScanThreshold : Math.max(RANK_POOL, need);
  /** Best cosine similarity of every item in scope (small selections with keywords: all known at once). */
  let similarity: Map<string, number> | undefined;
  let vectorRanked: Ranked[] = [];
  if (small && useKeywords) {
    // Every item in scope with its best distance, in no order: BM25, the vector ranking and the fusion all run here.
    const { text, values } = scopeRowsSql(t, req, ctx.now, useVectors ? q : null);
    const r = await runStatement<ScopeRow>(ctx, text, values);
    // Nearest first, ties by id (namespace, then key).
    const nearest: [string, number][] = [];
    for (const row of r.rows) if (row.d !== null && row.d !== undefined) nearest.push([rowId(row.ns, row.key), Number(row.d)]);
    nearest.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    similarity = new Map(nearest.map(([id, d]) => [id, 1 - d]));
    vectorRanked = nearest.slice(0, poolSize).map(([id, d]) => ({ id, score: 1 - d }));
    scopeRows = r.rows;
  } else if (useVectors) {
    vectorRanked = small ? await nearestVectors(req, ctx, q, need, poolSize, inScope, planKey, keep) : await annVectors(req, ctx, q, walkDepth(useKeywords, need, poolSize), planKey, keep);
  }
  let ranked = vectorRanked;
  if (useKeywords) {
    const keywordHits = scopeRows ? await keywordSmall(ctx, req.query, scopeRows, poolSize) : await keywordLarge(req, ctx, poolSize);
    if (!useVectors) {
      ranked = keywordHits.map((h) => ({ id: h.id, score: h.score / (1 + h.score) }));
    } else {
      const fused = hybridRank({ query: req.query, vectorHits: vectorRanked.map((r) => ({ id: r.id, score: r.score ?? 0 })), keywordHits }, RANKING.fusion);
      const byId = new Map(vectorRanked.map((r) => [r.id, r.score]));
      const missing = fused.filter((h) => !byId.has(h.id)).map((h) => h.id);
      const scores = similarity ? new Map(missing.filter((id) => similarity!.has(id)).map((id) => [id, similarity!.get(id)!])) : await bestScores(ctx, q, missing);
      for (const [id, score] of scores) byId.set(id, score);
      ranked = capDownTheList(fused.map((h) => ({ id: h.id, score: byId.get(h.id) })));
    }
  }
  // A small selection's replacements are all known: they reorder the whole ranking, as in HNSWStore.
  if (scopeRows) {
    const replaced = new Map<string, string>();
    for (const row of scopeRows) if (row.sup) replaced.set(rowId(row.ns, row.key), rowId(row.ns, row.sup));
    ranked = replacementsFirst(ranked, (id) => replaced.get(id));
  }

  // Rows are read for the page only (the ranking needs ids and scores); an id whose
  // row is gone (expired, filtered out in JS) makes room for the next one.
  const kept: Ranked[] = [];
  for (let checked = 0; kept.length < need && checked < ranked.length; ) {
    const next = ranked.slice(checked, checked + need - kept.length);
    checked += next.length;
    // Rows the ranking statement returned need no second read (a vector-only page: all of them).
    const missing = next.filter((r) => !rows.has(r.id)).map((r) => r.id);
    if (missing.length) await loadRows(ctx, missing, req, rows, keep);
    for (const r of next) if (rows.has(r.id)) kept.push(r);
  }
  // Otherwise the page's rows are: replacements reorder what was loaded.
  ranked = scopeRows ? kept : replacementsFirst(kept, (id) => replacedIn(rows, id));
  if (ranked.length < need) {
    // Fill with items that have nothing to rank them by, newest first.
    const seen = new Set(ranked.map((r) => r.id));
    const p = new Params();
    const seenPairs = [...seen].map(idPair);
    const noVectors = useVectors ? `AND NOT EXISTS ${everyVector(t, (v) => `SELECT 1 FROM ${v} v WHERE v.ns = i.ns AND v.key = i.key`)}` : "";
    const r = await runStatement<ItemRow>(
      ctx,
      `SELECT ${PAGE_COLUMNS} FROM ${t.items} i WHERE ${scopeWhere(req, ctx, p)} ${noVectors}
       AND (i.ns, i.key) NOT IN (SELECT * FROM unnest(${p.add(seenPairs.map((s) => s[0]))}::text[], ${p.add(seenPairs.map((s) => s[1]))}::text[]))
       ORDER BY i.updated_at DESC, i.ns, i.key LIMIT ${p.add(need - ranked.length)}`,
      p.values,
    );
    for (const row of r.rows) if (keep(row)) ranked.push({ id: rowId(row.ns, row.key) });
  }
  return finish(ranked.slice(req.offset, need), rows);
}

/** The page, and the ids of its items whose TTL a read restarts (none without TTLs: no UPDATE then). */
function finish(ranked: Ranked[], rows: Map<string, ItemRow>): { results: SearchItem[]; ids: [string, string][] } {
  return {
    results: ranked.map((r) => toSearchItem(rows.get(r.id)!, r.score)),
    ids: ranked.filter((r) => rows.get(r.id)!.ttl_minutes !== null).map((r) => idPair(r.id)),
  };
}

const pairs = (ids: string[]) => {
  const parsed = ids.map(idPair);
  return [parsed.map((p) => p[0]), parsed.map((p) => p[1])];
};

/*
 * Plans. Each id list is read as `unnest(...) CROSS JOIN LATERAL (... OFFSET 0)`
 * and each index walk checks its item with `EXISTS (... OFFSET 0)`: OFFSET 0
 * keeps the planner from flattening the subquery into a join, so every id is
 * one primary-key probe, whatever the table statistics say. PGlite runs no
 * autovacuum, so its tables are never analyzed; the planner then guessed a
 * selection of ~18 items and joined the index walk against all of them
 * (10k items: 260k join-filter rows, 370 ms in EXPLAIN ANALYZE).
 */

/** Fetches the rows of ranked ids not yet in `rows` (those still in scope and live) into `rows`. */
async function loadRows(ctx: PgSearchContext, missing: string[], req: PgSearchRequest, rows: Map<string, ItemRow>, keep: (row: ItemRow) => boolean) {
  const r = await itemsByIds<ItemRow>(ctx, missing, PAGE_COLUMNS, (p) => scopeWhere(req, ctx, p));
  for (const row of r.rows) keep(row);
}

/**
 * `columns` of the listed items, one primary-key probe each (see "Plans"),
 * those that pass `where` (its parameters added to the statement's own).
 */
function itemsByIds<R extends QueryResultRow>(ctx: PgSearchContext, ids: string[], columns: string, where?: (p: Params) => string): Promise<QueryResult<R>> {
  const [ns, keys] = pairs(ids);
  const p = new Params();
  // The id lists through InitPlans (see opaque): the statement keeps its generic plan.
  const list = opaque(p, "text[]");
  const idList = `unnest(${list.add(ns)}, ${list.add(keys)}) AS u(ns, key)`;
  const also = where ? ` AND ${where(p)}` : "";
  return runStatement<R>(
    ctx,
    `SELECT i.* FROM ${idList}
     CROSS JOIN LATERAL (SELECT ${columns} FROM ${ctx.tables.items} i WHERE i.ns = u.ns AND i.key = u.key${also} OFFSET 0) i`,
    p.values,
  );
}

/** Best cosine similarity of each listed item (over all its vectors). */
async function bestScores(ctx: PgSearchContext, q: Buffer, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  const [ns, keys] = pairs(ids);
  const t = ctx.tables;
  // As in scopeRowsSql: a primary-key probe of the indexed vectors per id, the pending ones of these ids read once.
  // The id lists through InitPlans (see opaque): the statement keeps its generic plan.
  const p = new Params();
  const list = opaque(p, "text[]");
  const idList = `unnest(${list.add(ns)}, ${list.add(keys)})`;
  const qp = p.add(q);
  const r = await runStatement<{ ns: string; key: string; d: number | null }>(
    ctx,
    `SELECT u.ns, u.key, LEAST(x.d, y.d) AS d FROM ${idList} AS u(ns, key)
     LEFT JOIN LATERAL (SELECT min(v.embedding <=> ${qp}::vector) AS d FROM ${t.vectors} v WHERE v.ns = u.ns AND v.key = u.key) x ON TRUE
     LEFT JOIN (SELECT v.ns, v.key, min(v.embedding <=> ${qp}::vector) AS d FROM ${t.pending} v
       WHERE (v.ns, v.key) IN (SELECT * FROM ${idList}) GROUP BY v.ns, v.key) y ON y.ns = u.ns AND y.key = u.key`,
    p.values,
  );
  for (const row of r.rows) if (row.d !== null) out.set(rowId(row.ns, row.key), 1 - Number(row.d));
  return out;
}

/**
 * Exact, for a small selection: every item in scope (live, filter), each
 * with its best distance to `q` over all its vectors, nearest first, ties by
 * id. The vectors are read first, as raw pgvector reads one user's: the
 * scope's range of each vector table's primary key (the indexed one and the
 * pending one, each read once), their distances, the best per item. With
 * `nearest` (the vector-only ranking) only items that have vectors: the
 * items in distance order, each row fetched by a primary-key probe until
 * `nearest` pass (live, filter), so a page of 10 probes 10 items, not the
 * whole scope; with `vectors` as well, only the scope's `vectors` nearest
 * vectors are read (a bounded sort), each item's best among them, or with
 * `oneEach` those vectors one row each (see nearestVectors for when each is
 * the exact answer). Otherwise every item joined to its best distance, in
 * no order (`d` null without vectors, or without `q`; the caller sorts), so
 * that BM25, the vector ranking and their fusion all come from this one
 * statement. The text depends only on the shape (filter structure, `q` or
 * not, `nearest` or not, `vectors` or not, `oneEach` or not), so it runs as a named prepared
 * statement.
 */
export function scopeRowsSql(
  t: Tables,
  req: Pick<PgSearchRequest, "namespacePrefix" | "filter">,
  now: number,
  q: Buffer | null,
  nearest?: number,
  vectors?: number,
  oneEach = false,
): { text: string; values: unknown[] } {
  const p = new Params();
  if (q === null) {
    const where = `${scopeSql("i.ns", req.namespacePrefix, p)} AND ${liveSql("i", now, p)} AND ${filterSql("i.value", req.filter, p)}`;
    return { text: `SELECT ${SCOPE_COLUMNS}, NULL::float8 AS d FROM ${t.items} i WHERE ${where}`, values: p.values };
  }
  const qp = p.add(q);
  // The range of the scope through an InitPlan (see opaque): the statement keeps its generic plan.
  const scope = scopeSql("v.ns", req.namespacePrefix, opaque(p));
  const distances = (table: string) => `SELECT v.ns, v.key, v.field, v.embedding <=> ${qp}::vector AS d FROM ${table} v WHERE ${scope}`;
  const best = `SELECT v.ns, v.key, min(v.d) AS d FROM ${everyVector(t, distances)} v GROUP BY v.ns, v.key`;
  if (nearest === undefined) {
    // In no order: the caller sorts the items (an ORDER BY here sorted every row again, ties by keys
    // in the database's collation). The best per item stays here: joined to one row per vector, the
    // generic plan went to a nested loop that read every vector again for each item (200 ms at 2,000).
    const where = `${scopeSql("i.ns", req.namespacePrefix, opaque(p))} AND ${liveSql("i", now, p)} AND ${filterSql("i.value", req.filter, p)}`;
    const text = `SELECT ${SCOPE_COLUMNS}, b.d FROM ${t.items} i LEFT JOIN (${best}) b ON b.ns = i.ns AND b.key = i.key WHERE ${where}`;
    return { text, values: p.values };
  }
  // The item rows in distance order (OFFSET 0 keeps both subqueries as written, see "Plans"): the
  // outer ORDER BY is the inner one, so the probes stop once the page is full.
  const item = `(SELECT ${PAGE_COLUMNS} FROM ${t.items} i WHERE i.ns = b.ns AND i.key = b.key AND ${liveSql("i", now, p)} AND ${filterSql("i.value", req.filter, p)} OFFSET 0) i`;
  // With `vectors`: the nearest vectors first (a bounded sort, ties in primary-key order), each
  // item's best among them (those few sorted by item), then those items in distance order again, so
  // that the probes below stop once the page is full.
  // With `oneEach` as well: those nearest vectors as they are, one row each (the caller checks that no
  // item came twice, see nearestVectors).
  const nearestOf = () => `SELECT v.ns, v.key, v.d FROM ${everyVector(t, distances)} v ORDER BY v.d, v.ns, v.key, v.field LIMIT ${p.add(vectors)}`;
  const ranked =
    vectors === undefined
      ? `${best} ORDER BY min(v.d), v.ns, v.key`
      : oneEach
        ? nearestOf()
        : `SELECT v.ns, v.key, v.d FROM (SELECT DISTINCT ON (v.ns, v.key) v.ns, v.key, v.d FROM (${nearestOf()}) v ORDER BY v.ns, v.key, v.d) v ORDER BY v.d, v.ns, v.key`;
  const text = `SELECT i.*, b.d FROM (${ranked} OFFSET 0) b CROSS JOIN LATERAL ${item} ORDER BY b.d, b.ns, b.key LIMIT ${p.add(nearest)}`;
  return { text, values: p.values };
}

/**
 * The vector-only exact ranking: the page's rows (`need`) with their
 * distances, one statement. Every row SQL returns passes the same scope,
 * TTL and filter in JS, so the page is complete; should JS refuse one, the
 * whole pool (`k`) is ranked instead, so the result never depends on it.
 *
 * The statement first reads only the nearest `limit` vectors of the scope,
 * one row each (a bounded sort, as raw pgvector's `ORDER BY … LIMIT` is, and
 * no per-item best). That is the exact answer when they belong to `limit`
 * different items (or every item in scope): each item's first vector is its
 * best, and every other item's best comes later. When an item came twice or
 * the page came back short, the plan cache marks the selection for a while
 * and the page is ranked again (and, while marked, at once) over the nearest
 * {@link NEAREST_VECTORS_PER_ITEM} × `limit` vectors, each item's best among
 * them: also the exact answer whenever it fills the page, since an item whose
 * best vector is not among them ranks below every item whose best vector is.
 * When that comes back short of `min(limit, inScope)` (items with more
 * vectors each, rows the filter or TTL refuse, items stored without vectors,
 * or a stale count), the page is ranked over every vector of the scope.
 */
async function nearestVectors(req: PgSearchRequest, ctx: PgSearchContext, q: Buffer, need: number, k: number, inScope: number, planKey: string, keep: (row: ItemRow) => boolean): Promise<Ranked[]> {
  for (const limit of need < k ? [need, k] : [k]) {
    const rank = (vectors?: number, oneEach?: boolean) => {
      const { text, values } = scopeRowsSql(ctx.tables, req, ctx.now, q, limit, vectors, oneEach);
      return runStatement<ItemRow & { d: number }>(ctx, text, values);
    };
    const full = Math.min(limit, inScope);
    let r: QueryResult<ItemRow & { d: number }> | undefined;
    if (!ctx.plans?.needsPerItemBest(planKey)) {
      r = await rank(limit, true);
      if (r.rows.length < full || new Set(r.rows.map((row) => rowId(row.ns, row.key))).size < r.rows.length) {
        ctx.plans?.setNeedsPerItemBest(planKey);
        r = undefined;
      }
    }
    r ??= await rank(NEAREST_VECTORS_PER_ITEM * limit);
    if (r.rows.length < full) r = await rank();
    let refused = false;
    for (const row of r.rows) if (!keep(row)) refused = true;
    if (!refused || limit === k) return r.rows.map((row) => ({ id: rowId(row.ns, row.key), score: 1 - Number(row.d) }));
  }
  return [];
}

/**
 * Vectors per item of a page the exact vector-only ranking reads first: an
 * item stored with up to this many indexed fields does not send the search
 * to the slower statement over every vector of the scope.
 */
export const NEAREST_VECTORS_PER_ITEM = 3;

/** A search statement, named and prepared when the store prepares statements (see PreparedStatements). */
function runStatement<R extends QueryResultRow>(ctx: PgSearchContext, text: string, values: unknown[], inTransaction = ctx.inTransaction): Promise<QueryResult<R>> {
  return ctx.statements ? ctx.statements.query<R>(ctx.db, text, values, inTransaction) : ctx.db.query<R>(text, values);
}

/**
 * The index walk: vectors in distance order (the HNSW index), each joined to
 * its item row (live, filter) by a per-row primary-key probe, so the walk
 * stops as soon as `k` rows pass, and the page's rows come back with it (no
 * second round trip). Run after the settings `annVectors` makes.
 *
 * With `pendingBound`, the pending branch reads only the `pendingBound`
 * nearest pending vectors of the scope (a bounded sort) before its probes,
 * and every row also carries `pn`, how many rows that branch gave, and
 * `pc`, how many pending vectors the scope holds, counted up to
 * `pendingBound` + 1. The page is the unbounded walk's page whenever `pn`
 * reached `k` or `pc` is at most `pendingBound` (see {@link pendingBoundHeld});
 * otherwise the caller walks again without the bound.
 */
export function annSql(t: Tables, req: Pick<PgSearchRequest, "namespacePrefix" | "filter">, now: number, q: Buffer, k: number, pendingBound?: number): { text: string; values: unknown[] } {
  const p = new Params();
  const qp = p.add(q);
  const item = `CROSS JOIN LATERAL (SELECT ${PAGE_COLUMNS} FROM ${t.items} i
       WHERE i.ns = v.ns AND i.key = v.key AND ${liveSql("i", now, p)} AND ${filterSql("i.value", req.filter, p)} OFFSET 0) i`;
  // The scope as literals: the generic plan of this prepared statement must see the range (see literals).
  const scope = scopeSql("v.ns", req.namespacePrefix, literals);
  // The depth as a literal too: with `LIMIT $n` the generic plan is costed for 10% of the table,
  // so PostgreSQL kept planning a custom plan on every run (0.4 ms, against 0.07 ms for the raw
  // walk); with the depth in the text (a handful of values: the page, the pool, their doublings)
  // the generic plan costs what the custom one does and the session keeps it.
  const kp = String(Math.trunc(k));
  // The pending branch sorts the pending vectors in scope by distance first (keys only, no item
  // row) and probes their items in that order until k pass: probing every pending vector's item
  // before the sort was nearly the whole cost of a search during a burst of writes (2,000 primary-key
  // probes, 6,000 buffers, against 667 for the pending table itself). Bounded, the sort keeps only
  // the nearest `pendingBound` (a top-N heap instead of sorting every pending vector: a fifth of
  // a search at 10k items with 1,000 pending); its first rows are the unbounded sort's first rows.
  const pendingOrder = pendingBound === undefined ? "OFFSET 0" : `LIMIT ${Math.trunc(pendingBound)}`;
  const nearest = (table: string) =>
    table === t.pending
      ? `SELECT v.d, i.* FROM (SELECT v.ns, v.key, v.field, v.embedding <=> ${qp}::vector AS d FROM ${table} v WHERE ${scope}
           ORDER BY d, v.ns, v.key, v.field ${pendingOrder}) v ${item} ORDER BY v.d, v.ns, v.key, v.field LIMIT ${kp}`
      : `SELECT v.embedding <=> ${qp}::vector AS d, i.* FROM ${table} v ${item} WHERE ${scope} ORDER BY v.embedding <=> ${qp}::vector LIMIT ${kp}`;
  // The pending branch is a sort of the few vectors not yet indexed; the outer ORDER BY merges both.
  // Equal distances keep the walk's own order (then the pending rows'), so that the first k rows
  // of a deeper walk are those of a shallower one, and pages of one ranking never overlap.
  const numbered = (table: string) => `SELECT w.*, ${table === t.pending ? 1 : 0} AS b, row_number() OVER () AS o FROM (${nearest(table)}) w`;
  if (pendingBound === undefined) {
    // The page's columns only (not the branch and row numbers that order it).
    const text = `SELECT u.d, ${WALK_COLUMNS} FROM ${everyVector(t, numbered)} u ORDER BY u.d, u.b, u.o LIMIT ${kp}`;
    return { text, values: p.values };
  }
  // The pending branch once (it is read twice: for the page and for its row count).
  const counted = `(SELECT count(*) FROM pending)::int AS pn, (SELECT count(*) FROM (SELECT 1 FROM ${t.pending} v WHERE ${scope} LIMIT ${Math.trunc(pendingBound) + 1}) c)::int AS pc`;
  const text = `WITH pending AS MATERIALIZED (${numbered(t.pending)})
    SELECT u.d, ${WALK_COLUMNS}, ${counted} FROM ((${numbered(t.vectors)}) UNION ALL (SELECT * FROM pending)) u ORDER BY u.d, u.b, u.o LIMIT ${kp}`;
  return { text, values: p.values };
}

/**
 * Whether a walk with a bounded pending branch (annSql's `pendingBound`)
 * returned the unbounded walk's page: its pending branch gave all `k` rows
 * it could (so the rows it did not read, all farther than those it read,
 * could not enter), or it read every pending vector of the scope. A walk
 * that returned no row settles it another way (see annVectors).
 */
export function pendingBoundHeld(rows: { pn?: number; pc?: number }[], k: number, pendingBound: number): boolean {
  const first = rows[0];
  return first === undefined || Number(first.pn) >= k || Number(first.pc) <= pendingBound;
}

/**
 * How many items the index walk fetches. Fusion reads a fixed pool of the
 * vector ranking; without a keyword side only the page is kept, and the walk
 * is a prefix of any deeper one (see annSql), so it fetches the page only:
 * fewer heap reads of the vectors and fewer item probes, same items and scores.
 */
function walkDepth(useKeywords: boolean, need: number, pool: number): number {
  return useKeywords ? pool : need;
}

/**
 * Through the HNSW index. k is doubled when an item's several vectors leave
 * fewer than k distinct items; when the walk returns fewer rows than asked,
 * an exact query over the scope settles it, so `limit` is filled.
 *
 * pgvector 0.8's iterative scan keeps walking the graph until a filtered
 * query has its rows, but it costs every walk: each node the walk visits and
 * passes over is kept for a later round (about half as much again as the
 * walk itself at 10k vectors and ef_search 100, where nothing is filtered
 * out). So a walk runs without it first (pgvector stops at ef_search rows);
 * if the scope, TTL or filter left fewer than the walk asked for, it walks
 * again with it, and the selection's later walks use it from the start for
 * as long as the plan cache remembers (see PlanCache.needsIterativeScan). An
 * explicit `efSearch` below the walk's depth uses it at once: only an
 * iterative scan honours a beam narrower than the page.
 */
async function annVectors(req: PgSearchRequest, ctx: PgSearchContext, q: Buffer, k: number, planKey: string, keep: (row: ItemRow) => boolean): Promise<Ranked[]> {
  let kk = k;
  let iterative = ctx.iterativeScan && ((ctx.efExplicit && ctx.efSearch < kk) || ctx.plans?.needsIterativeScan(planKey) === true);
  for (;;) {
    // An explicit efSearch is used as it is when iterative scans fill a page past it; else the
    // beam is at least the walk's depth (without iterative scans pgvector returns at most ef rows).
    const efSearch = ctx.efExplicit && iterative ? ctx.efSearch : Math.max(ctx.efSearch, kk);
    const mode = ctx.walkMode ?? "local";
    const settings = { efSearch, iterativeScan: ctx.iterativeScan ? (iterative ? "relaxed_order" : "off") : undefined } as const;
    const walk = (pendingBound?: number) => {
      const { text, values } = annSql(ctx.tables, req, ctx.now, q, kk, pendingBound);
      return withWalkSettings(ctx.db, settings, mode, ctx.inTransaction, () =>
        runStatement<ItemRow & { d: number; pn?: number; pc?: number }>(ctx, text, values, ctx.inTransaction || mode === "local"),
      );
    };
    // Without a filter only an expired item can fail its probe, so a pending branch bounded at the
    // walk's depth nearly always gives the whole page; when it cannot tell, the walk runs unbounded.
    const bound = req.filter ? undefined : kk;
    let r = await walk(bound);
    if (bound !== undefined && !pendingBoundHeld(r.rows, kk, bound)) r = await walk();
    for (const row of r.rows) keep(row);
    const best = new Map<string, number>();
    for (const row of r.rows) {
      const id = rowId(row.ns, row.key);
      const s = 1 - Number(row.d);
      if (!best.has(id) || best.get(id)! < s) best.set(id, s);
    }
    if (best.size >= k) return [...best].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score).slice(0, k);
    if (r.rows.length < kk) {
      // Fewer rows than asked: the walk stopped at ef_search with rows left out by the scope, TTL
      // or filter (walk on past it, iteratively), or the scope is exhausted, or the index walk gave
      // up (no iterative scan before pgvector 0.8, or hnsw.max_scan_tuples reached): settle it exactly.
      if (ctx.iterativeScan && !iterative) {
        iterative = true;
        ctx.plans?.setNeedsIterativeScan(planKey);
        continue;
      }
      return nearestVectors(req, ctx, q, k, k, Number.POSITIVE_INFINITY, planKey, keep);
    }
    kk *= 2;
  }
}

/**
 * BM25 over the keyword texts of every item in scope, as HNSWStore ranks a
 * small selection. The items' documents come from `ctx.keywordDocuments`
 * where it holds them at their row's version; the values of the others
 * (new, changed, or never seen by this process) are read in one statement.
 */
async function keywordSmall(ctx: PgSearchContext, query: string, scope: ScopeRow[], limit: number) {
  const index = new KeywordIndex();
  const kept = ctx.keywordDocuments;
  const ids = scope.map((row) => rowId(row.ns, row.key));
  // Each item's document where it is kept at its row's version (null: no keyword texts; undefined: to read).
  const docs = ids.map((id, i) => kept?.get(id, scope[i]!.v));
  const missing = ids.filter((_, i) => docs[i] === undefined);
  if (missing.length) {
    const r = await itemsByIds<{ ns: string; key: string; v: string; value: Record<string, unknown>; index_fields: false | string[] | null }>(
      ctx,
      missing,
      `i.ns, i.key, ${ROW_VERSION}, i.value, i.index_fields`,
    );
    // Read now: the row may be newer than the one the ranking statement saw, which is fine for one search.
    const read = new Map<string, KeywordDocument | null>();
    for (const row of r.rows) {
      const texts = keywordTexts(row.value, row.index_fields ?? undefined, ctx.fields);
      const doc = texts.length ? index.document(texts) : null;
      const id = rowId(row.ns, row.key);
      read.set(id, doc);
      kept?.set(id, row.v, doc);
    }
    ids.forEach((id, i) => {
      if (docs[i] === undefined) docs[i] = read.get(id) ?? null;
    });
  }
  const ranked: [string, KeywordDocument][] = [];
  ids.forEach((id, i) => {
    const doc = docs[i];
    if (doc) ranked.push([id, doc]);
  });
  return index.rankDocuments(query, ranked, limit);
}

/** The id of the item whose row in `rows` says it replaces another (`value.supersedes`). */
function replacedIn(rows: Map<string, ItemRow>, id: string): string | undefined {
  const row = rows.get(id);
  const old = row && supersedesKey(row.value);
  return old === undefined ? undefined : rowId(row!.ns, old);
}

/** A replaced memory kept behind its replacement (see supersededAfterReplacement); `replacedOf` gives the id an item replaces. */
function replacementsFirst(ranked: Ranked[], replacedOf: (id: string) => string | undefined): Ranked[] {
  const id = (r: Ranked) => r.id;
  const replaced = (r: Ranked) => replacedOf(r.id);
  return capDownTheList(liftReplacementScores(supersededAfterReplacement(ranked, id, replaced), id, replaced));
}

/** PostgreSQL full-text search over the same terms (GIN index), by ts_rank. */
async function keywordLarge(req: PgSearchRequest, ctx: PgSearchContext, limit: number) {
  const terms = [...new Set(tokenize(req.query!))];
  if (terms.length === 0) return [];
  const p = new Params();
  // The plan must not depend on the values a custom plan would see, or PostgreSQL plans the
  // statement again on every call: the terms through an InitPlan (the query parsed once, not per
  // row; the GIN index reads it the same), the scope as literals as in the walk (annSql: one
  // statement per large prefix, the range visible to every plan), the pool as a literal.
  const tsq = `(SELECT to_tsquery('simple', ${p.add(terms.map((w) => `'${w.replace(/'/g, "''")}'`).join(" | "))}::text))`;
  const where = `${scopeSql("i.ns", req.namespacePrefix, literals)} AND ${liveSql("i", ctx.now, p)} AND ${filterSql("i.value", req.filter, p)}`;
  const r = await runStatement<{ ns: string; key: string; r: number }>(
    ctx,
    `SELECT i.ns, i.key, ts_rank(i.tsv, ${tsq}) AS r FROM ${ctx.tables.items} i
     WHERE i.tsv @@ ${tsq} AND ${where} ORDER BY r DESC, i.updated_at DESC LIMIT ${Math.trunc(limit)}`,
    p.values,
  );
  // ts_rank is in (0, 1); scaled so that s/(1+s) spreads like BM25's.
  return r.rows.map((row) => ({ id: rowId(row.ns, row.key), score: Number(row.r) * 10 }));
}
