import type {
  GetOperation,
  ListNamespacesOperation,
  Operation,
  PutOperation,
  SearchItem,
  SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { EmbedderRequiredError } from "../../errors.js";
import { extractFieldTexts } from "../fields.js";
import { toItem } from "./item-table.js";
import { listNamespaces } from "./list-namespaces.js";
import type { WriteHold } from "./batch-lock.js";
import type { Compactor } from "./compactor.js";
import type { HNSWGetOperation, HNSWSearchOperation } from "./options.js";
import type { PreparedBatch } from "./prepare-batch.js";
import { keywordSide, planNeedsGraph, planSearch, runSearch, type KeywordSide, type Ranked, type SearchPlan, type SearchRequest } from "./search.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import type { IndexManifest } from "./snapshot.js";
import type { StoreState } from "./store-state.js";
import { TimeSlicer } from "../../time-slice.js";
import { APPLY_SLICE_MS } from "./settings.js";
import type { LogOp } from "./write-ahead-log.js";

type Touch = (item: { namespace: string[]; key: string; ttl?: number; expiresAt?: number }, refreshTtl: boolean | undefined) => void;

/** A batch that only reads (gets, searches, listNamespaces) runs beside other reads and beside a compaction. */
export function isReadOnly(operations: Operation[]): boolean {
  return Array.isArray(operations) && operations.every((op) => op !== null && typeof op === "object" && !("value" in op));
}

/** Opened `withoutEmbedder` (`stored` is the directory's index): a put whose value has text to embed cannot be stored. */
export function refuseNewVectors(state: StoreState, operations: Operation[], stored: IndexManifest, dir: string | undefined): void {
  for (const op of operations) {
    const p = op as PutOperation;
    if (!op || typeof op !== "object" || !("value" in op) || p.value === null || p.value === undefined || p.index === false) continue;
    if (extractFieldTexts(p.value, state.pathsFor(p.index)).length === 0) continue;
    const embedder = stored.embedder;
    throw new EmbedderRequiredError(
      `store directory ${dir} was opened without its embedder; storing ${JSON.stringify(p.namespace)}/${p.key} needs new vectors from ${embedder} (${stored.dims} dims): open it with that embedder, or put with index: false`,
      embedder,
    );
  }
}

/** What {@link applyBatch} needs besides the batch. */
export interface ApplyContext {
  now: number;
  /** The store's `ttl.refreshOnRead` (an operation's `refreshTtl` overrides it). */
  refreshOnRead: boolean;
  retrieval: RetrievalMode;
  exactScanThreshold: number;
  /** Keyword sides ranked while the batch's queries were embedded (see {@link keywordSidesAhead}), by position. */
  keywordSides?: Map<number, KeywordSideAhead>;
}

/** A search's keyword side, ranked under the plan it would have with its query vector. */
export interface KeywordSideAhead {
  plan: SearchPlan;
  side: KeywordSide;
}

/** The context a search of the batch runs in: its own `retrieval`, when it has one. */
const searchContextOf = (op: Operation, ctx: ApplyContext): ApplyContext => {
  const mode = (op as HNSWSearchOperation).retrieval;
  return mode === undefined ? ctx : { ...ctx, retrieval: mode };
};

/**
 * The keyword sides of a read-only batch's searches with a query, ranked
 * before their query vectors exist (a search that will have one plans as it
 * will then). The store runs this on the event loop while the embedder (a
 * worker thread, a remote API) embeds the queries, under the same read lock
 * and clock as the batch: the state cannot change in between, so
 * {@link applyBatch} uses each side as it is when the search's plan came out
 * the same (it differs only when the query's embedding failed).
 */
export function keywordSidesAhead(state: StoreState, operations: Operation[], ctx: ApplyContext, vectorsExpected: boolean): Map<number, KeywordSideAhead> {
  const out = new Map<number, KeywordSideAhead>();
  operations.forEach((op, i) => {
    if (!("namespacePrefix" in op) || typeof op.query !== "string") return;
    const searchCtx = searchContextOf(op, ctx);
    // A placeholder vector: planSearch only asks whether there will be one.
    const req = searchRequest(op, vectorsExpected ? [] : undefined);
    const plan = planSearch(state, req, searchCtx);
    if (plan.useKeywords) out.set(i, { plan, side: keywordSide(state, req, searchCtx, plan) });
  });
  return out;
}

/** Whether two plans of one search rank the same way (so a keyword side ranked under one serves the other). */
const samePlan = (a: SearchPlan, b: SearchPlan) => a.useVectors === b.useVectors && a.useKeywords === b.useKeywords && a.exact === b.exact;

/**
 * Applies a prepared batch in order and returns its results with the TTL
 * refreshes its reads made (for the caller to log). HNSW inserts are
 * synchronous (about a millisecond each), so a long batch yields to the
 * event loop every {@link APPLY_SLICE_MS}; other batches still wait (a
 * writer holds the lock alone, so no read sees a half-applied batch).
 */
export async function applyBatch(
  state: StoreState,
  operations: Operation[],
  prepared: PreparedBatch,
  ctx: ApplyContext,
): Promise<{ results: unknown[]; touched: LogOp[] }> {
  const { now } = ctx;
  const touched: LogOp[] = [];
  const touch: Touch = (item, refreshTtl) => {
    if (!(refreshTtl ?? ctx.refreshOnRead) || item.ttl === undefined) return;
    item.expiresAt = now + item.ttl * 60_000;
    touched.push({ t: "touch", ns: item.namespace, key: item.key, exp: item.expiresAt });
  };
  const results: unknown[] = [];
  // Shared: the batch's preparation may have used part of this turn already.
  const slicer = new TimeSlicer(APPLY_SLICE_MS, true);
  // Room for the whole batch first: at most one resize, in a turn of its own, and the slow insert after it alone in the next.
  let newVectors = 0;
  for (const put of prepared.puts.values()) newVectors += put.vectors.length;
  let resized = state.vectors?.reserve(newVectors) ?? false;
  if (resized) await slicer.pause();
  // The batch's HNSW walks, shared by its searches until it writes.
  const walks = new Map<string, Ranked[]>();
  for (let i = 0; i < operations.length; i++) {
    if (i > 0 && slicer.due) await slicer.pause();
    const op = operations[i]!;
    let search: PlannedSearch | undefined;
    if ("namespacePrefix" in op) {
      const req = searchRequest(op, prepared.queryVectors.get(i));
      const searchCtx = { ...searchContextOf(op, ctx), walks };
      const plan = req.query !== undefined && req.query !== null ? planSearch(state, req, searchCtx) : undefined;
      // While the store opens, a search that walks the graph waits for it (reads hold no writer back).
      if (plan && planNeedsGraph(state, plan)) await state.vectors!.whenLoaded();
      const ahead = plan && ctx.keywordSides?.get(i);
      search = { req, plan, ctx: searchCtx, keyword: ahead && samePlan(ahead.plan, plan) ? ahead.side : undefined };
    } else if ("value" in op) walks.clear();
    results.push(applyOne(state, op, prepared, ctx, touch, i, search));
    if (resized && prepared.puts.get(i)?.vectors.length) {
      resized = false;
      await slicer.pause();
    }
  }
  return { results, touched };
}

const searchRequest = (s: SearchOperation, queryVector: number[] | undefined): SearchRequest => ({
  namespacePrefix: s.namespacePrefix,
  filter: s.filter,
  limit: s.limit ?? 10,
  offset: s.offset ?? 0,
  query: s.query,
  queryVector,
});

/** A search operation's request, and its plan when it has a query. */
interface PlannedSearch {
  req: SearchRequest;
  plan?: SearchPlan;
  /** The context with the operation's own `retrieval`, when it has one. */
  ctx: ApplyContext;
  /** Its keyword side, when it was ranked ahead under the same plan. */
  keyword?: KeywordSide;
}

function applyOne(state: StoreState, op: Operation, prepared: PreparedBatch, ctx: ApplyContext, touch: Touch, i: number, search?: PlannedSearch): unknown {
  const { now } = ctx;
  if (search) {
    const ranked = runSearch(state, search.req, search.ctx, search.plan, search.keyword);
    return ranked.map(({ item, score }) => {
      touch(item, (op as HNSWSearchOperation).refreshTtl);
      const out: SearchItem = toItem(item);
      if (score !== undefined) out.score = score;
      return out;
    });
  }
  if ("value" in op) {
    const put = prepared.puts.get(i);
    if (put) state.applyPut(put, now);
    else state.applyDelete((op as PutOperation).namespace, (op as PutOperation).key);
    return undefined;
  }
  if ("key" in op) {
    const g = op as GetOperation;
    const item = state.items.get(g.namespace, g.key);
    if (!item || (item.expiresAt !== undefined && item.expiresAt <= now)) return null;
    touch(item, (g as HNSWGetOperation).refreshTtl);
    return toItem(item);
  }
  return listNamespaces(state.items, op as ListNamespacesOperation, now);
}

/**
 * Deletes the items under `prefix` that `pred` picks: logged as one record
 * (fsynced when `sync`), applied, then a compaction if the log is due one.
 * Returns how many. Runs under a writer's `hold`.
 */
export async function deleteWhere(
  state: StoreState,
  prefix: string[],
  pred: (item: { expiresAt?: number }) => boolean,
  args: {
    compactor: Pick<Compactor, "writeLog" | "maybeCompact">;
    hold: WriteHold;
    clock: () => number;
    sync: boolean;
    /** `pred` picks only items expired by this time (a TTL sweep): groups with none are skipped. */
    expiredBy?: number;
  },
): Promise<number> {
  const ops: LogOp[] = [];
  for (const group of state.items.groupsUnder(prefix)) {
    // A TTL sweep skips the groups still pending from the snapshot in which nothing has expired (undecoded).
    if (args.expiredBy !== undefined && !group.mayHaveExpired(args.expiredBy)) continue;
    for (const item of group.items.values()) if (pred(item)) ops.push({ t: "del", ns: item.namespace, key: item.key });
  }
  if (ops.length === 0) return 0;
  // Removing vectors needs the graph (still loading for a moment after an open).
  await state.vectors?.whenLoaded();
  await args.compactor.writeLog(args.clock(), ops, args.sync);
  for (const op of ops) state.applyDelete(op.ns, op.key);
  await args.compactor.maybeCompact(false, args.hold);
  return ops.length;
}
