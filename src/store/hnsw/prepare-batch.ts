import { conditionOf } from "../conditional-put.js";
import type { Embeddings } from "@langchain/core/embeddings";
import type { GetOperation, ListNamespacesOperation, Operation, PutOperation, SearchOperation } from "@langchain/langgraph-checkpoint";
import { EmbeddingError, InvalidArgumentError } from "../../errors.js";
import { extractFieldTexts } from "../fields.js";
import { validateFilter } from "../filter.js";
import { validateNamespace } from "../namespace.js";
import { RETRIEVAL_MODES, type RetrievalMode } from "../retrieval-mode.js";
import type { MemorySearchOperation } from "../operations.js";
import type { PreparedPut, StoreState } from "./store-state.js";
import { effectiveTtl, validateTtlMinutes, type TTLConfig } from "../ttl.js";
import { validateValue } from "../validate-value.js";
import { validateKey } from "../text-rules.js";
import { encodeVector } from "../../embeddings/vector-codec.js";
import { adaptQueryVector, checkQueryAdapterChoice, type QueryAdapterKind } from "../../embeddings/query-adapter.js";
import { encodeLogOps, type LogOp } from "./write-ahead-log.js";
import { TimeSlicer } from "../../time-slice.js";
import { APPLY_SLICE_MS } from "./settings.js";

/** A batch after validation and embedding: nothing in it can fail to apply. */
export interface PreparedBatch {
  /** Put operations (by position in the batch) that store a value. */
  puts: Map<number, PreparedPut>;
  /** The query vector of each search (by position) that has one. */
  queryVectors: Map<number, number[]>;
  /** What the log records for this batch, in order. */
  logOps: LogOp[];
}

export interface PrepareContext {
  state: Pick<StoreState, "pathsFor">;
  embeddings?: Embeddings;
  dims?: number;
  retrieval: RetrievalMode;
  ttl?: TTLConfig;
  now: number;
  logger: Pick<Console, "warn">;
  /** Whether search queries go through the embedder's query adapters at all (`index.queryAdapter`); default true. */
  queryAdapter?: boolean;
  /** Serialise the log ops for the write-ahead log's append ({@link encodeLogOps}): a store that writes a log. */
  encodeLog?: boolean;
}

type Kind = "get" | "put" | "search" | "list";

function kindOf(op: Operation, i: number): Kind {
  if (op === null || typeof op !== "object") throw new InvalidArgumentError(`operation ${i} is not an object`);
  if ("namespacePrefix" in op) return "search";
  if ("value" in op) return "put";
  if ("namespace" in op && "key" in op) return "get";
  if ("limit" in op || "matchConditions" in op || "maxDepth" in op) return "list";
  throw new InvalidArgumentError(`operation ${i} is not a get, put, search or listNamespaces operation: ${JSON.stringify(op)}`);
}

function validateOp(op: Operation, i: number, kind: Kind): void {
  const where = `operation ${i} (${kind})`;
  if (kind === "get" || kind === "put") {
    const o = op as GetOperation;
    // As in LangGraph's contract, the reserved root `langgraph` is refused by
    // put(), not by batch(): the framework writes under it through batch().
    validateNamespace(o.namespace, { forWrite: kind === "put" && (op as PutOperation).value !== null, allowReservedRoot: true });
    validateKey(o.key, where);
  }
  if (kind === "put") {
    const p = op as PutOperation & { ttl?: number | null };
    if (p.value !== null) validateValue(p.value, `${where} at ${JSON.stringify(p.namespace)}/${p.key}`);
    if (p.index !== undefined && p.index !== false && !(Array.isArray(p.index) && p.index.every((f) => typeof f === "string"))) {
      throw new InvalidArgumentError(`${where}: index must be false or an array of field paths, got ${JSON.stringify(p.index)}`);
    }
    validateTtlMinutes(p.ttl, `${where}: ttl`);
  }
  if (kind === "search") {
    const s = op as SearchOperation;
    validateNamespace(s.namespacePrefix, { what: "namespace prefix" });
    for (const [name, v] of [["limit", s.limit], ["offset", s.offset]] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new InvalidArgumentError(`${where}: ${name} must be an integer >= 0, got ${JSON.stringify(v)}`);
    }
    if (s.query !== undefined && s.query !== null && typeof s.query !== "string") {
      throw new InvalidArgumentError(`${where}: query must be a string, got ${typeof s.query}`);
    }
    validateFilter(s.filter);
    const mode = (op as MemorySearchOperation).retrieval;
    if (mode !== undefined && !RETRIEVAL_MODES.includes(mode)) {
      throw new InvalidArgumentError(`${where}: retrieval must be one of ${RETRIEVAL_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
    }
    checkQueryAdapterChoice((op as MemorySearchOperation).queryAdapter, where);
  }
  if (kind === "list") {
    const l = op as ListNamespacesOperation;
    for (const c of l.matchConditions ?? []) validateNamespace(c.path, { what: `${c.matchType} condition` });
    for (const [name, v] of [["limit", l.limit], ["offset", l.offset], ["maxDepth", l.maxDepth]] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new InvalidArgumentError(`${where}: ${name} must be an integer >= 0, got ${JSON.stringify(v)}`);
    }
  }
}

/**
 * Embeds `texts` in one call and checks every vector (count, length, NaN).
 * @throws {EmbeddingError} naming the problem; nothing has been written.
 */
export async function embedTexts(embeddings: Embeddings, texts: string[], dims: number): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  if (texts.length === 0) return out;
  let vectors: number[][];
  try {
    vectors = await embeddings.embedDocuments(texts);
  } catch (err) {
    throw new EmbeddingError(`the embedder failed on ${texts.length} text(s): ${(err as Error)?.message ?? String(err)}`);
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new EmbeddingError(`the embedder returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts`);
  }
  // Checked in slices, as the rest of a batch's preparation: a large batch never holds the event loop for long.
  const slicer = new TimeSlicer(APPLY_SLICE_MS, true);
  for (let i = 0; i < vectors.length; i++) {
    if (i > 0 && slicer.due) await slicer.pause();
    const v = vectors[i]!;
    checkVector(v, dims, () => `text ${JSON.stringify(texts[i]!.slice(0, 60))}`);
    // A plain array is used as it is (embedders return fresh arrays): one 512-float copy less per put.
    out.set(texts[i]!, Array.isArray(v) ? v : Array.from(v));
  }
  return out;
}

/** Checks one vector; `what` names its text, and is made only for an error (it is on every search's path). */
function checkVector(v: unknown, dims: number, what: () => string): void {
  if (!Array.isArray(v) && !ArrayBuffer.isView(v)) throw new EmbeddingError(`the embedder returned a non-array vector for ${what()}`);
  const arr = v as ArrayLike<number>;
  if (arr.length !== dims) throw new EmbeddingError(`the embedder returned a ${arr.length}-dim vector for ${what()}; index.dims is ${dims}`);
  for (let i = 0; i < arr.length; i++) {
    if (typeof arr[i] !== "number" || !Number.isFinite(arr[i])) throw new EmbeddingError(`the embedder returned ${arr[i]} at position ${i} for ${what()}`);
  }
}

/**
 * The adapter a search's query goes through: none when the store's
 * `index.queryAdapter` is false (it turns every adapter off) or the search
 * says `false`; the kind it names; else (`true`, unset) the facts adapter.
 */
export function adapterKind(choice: MemorySearchOperation["queryAdapter"], store: boolean | undefined): QueryAdapterKind | undefined {
  if (store === false || choice === false) return undefined;
  return typeof choice === "string" ? choice : "facts";
}

/**
 * Validates every operation, then embeds the batch's texts in one
 * `embedDocuments` call (and each distinct query once). Throws before
 * anything changes if any operation is invalid or the embedder fails on a
 * document. A failing query embedding only degrades that search to keyword
 * ranking, with a warning.
 */
export async function prepareBatch(operations: Operation[], ctx: PrepareContext): Promise<PreparedBatch> {
  if (!Array.isArray(operations)) throw new InvalidArgumentError("batch() needs an array of operations");
  const kinds = operations.map((op, i) => kindOf(op, i));
  operations.forEach((op, i) => validateOp(op, i, kinds[i]));
  operations.forEach((op) => conditionOf(op));

  const fieldTexts = new Map<number, { field: string; text: string }[]>();
  const texts = new Set<string>();
  if (ctx.embeddings && ctx.dims) {
    operations.forEach((op, i) => {
      const p = op as PutOperation;
      if (kinds[i] !== "put" || p.value === null || p.index === false) return;
      const fts = extractFieldTexts(p.value, ctx.state.pathsFor(p.index));
      fieldTexts.set(i, fts);
      for (const f of fts) texts.add(f.text);
    });
  }
  // A batch of reads (a search, a get) embeds no documents: no embedder call, no put preparation below.
  const vectors = ctx.embeddings && ctx.dims && texts.size > 0 ? await embedTexts(ctx.embeddings, [...texts], ctx.dims) : new Map<string, number[]>();

  const queryVectors = new Map<number, number[]>();
  if (ctx.embeddings && ctx.dims) {
    const byQuery = new Map<string, number[] | undefined>();
    // The adapted vector of each query and adapter kind, made once however many searches use it: one
    // array per query and kind (walks are shared by vector array), so a facts search and an episodes
    // search of the same text never share a walk.
    const adapted: Record<QueryAdapterKind, Map<string, number[]>> = { facts: new Map(), episodes: new Map() };
    for (let i = 0; i < operations.length; i++) {
      const q = (operations[i] as SearchOperation).query;
      if (kinds[i] !== "search" || typeof q !== "string") continue;
      if (((operations[i] as MemorySearchOperation).retrieval ?? ctx.retrieval) === "keyword") continue;
      if (!byQuery.has(q)) {
        try {
          const v = await ctx.embeddings.embedQuery(q);
          checkVector(v, ctx.dims, () => `query ${JSON.stringify(q.slice(0, 60))}`);
          byQuery.set(q, Array.isArray(v) ? v : Array.from(v)); // as embedTexts: a plain array as it is
        } catch (err) {
          ctx.logger.warn(`langgraph-hnsw-memory: embedding the search query failed (${(err as Error)?.message ?? err}); ranking by keywords instead`);
          byQuery.set(q, undefined);
        }
      }
      const v = byQuery.get(q);
      if (!v) continue;
      const kind = adapterKind((operations[i] as MemorySearchOperation).queryAdapter, ctx.queryAdapter);
      if (!kind) queryVectors.set(i, v);
      else {
        const byKind = adapted[kind];
        if (!byKind.has(q)) byKind.set(q, adaptQueryVector(ctx.embeddings, v, kind));
        queryVectors.set(i, byKind.get(q)!);
      }
    }
  }

  const puts = new Map<number, PreparedPut>();
  const logOps: LogOp[] = [];
  if (!kinds.includes("put")) return { puts, queryVectors, logOps };
  // Cloning values, encoding vectors and serialising the log record run in
  // slices (the record's append then only copies bytes): a batch of
  // thousands of puts never holds the event loop for more than a slice.
  const slicer = new TimeSlicer(APPLY_SLICE_MS, true);
  // Each vector waits for the apply as a typed array: the collector need not copy it, and the log encodes it as it is.
  const typed = new Map<string, Float32Array>();
  const typedVector = (text: string) => {
    let v = typed.get(text);
    if (!v) typed.set(text, (v = Float32Array.from(vectors.get(text)!)));
    return v;
  };
  for (let i = 0; i < operations.length; i++) {
    if (i > 0 && slicer.due) await slicer.pause();
    const op = operations[i]!;
    if (kinds[i] !== "put") continue;
    const p = op as PutOperation & { ttl?: number | null };
    if (p.value === null) {
      logOps.push({ t: "del", ns: [...p.namespace], key: p.key });
      continue;
    }
    const ttl = effectiveTtl(p.ttl, ctx.ttl?.defaultTtl);
    const put: PreparedPut = {
      namespace: [...p.namespace],
      key: p.key,
      value: structuredClone(p.value),
      index: p.index,
      ttl,
      expiresAt: ttl === undefined ? undefined : ctx.now + ttl * 60_000,
      vectors: (fieldTexts.get(i) ?? []).map(({ field, text }) => ({ field, vector: typedVector(text) })),
    };
    puts.set(i, put);
    const rec: LogOp = { t: "put", ns: put.namespace, key: put.key, value: put.value };
    if (put.index !== undefined) rec.index = put.index;
    if (put.expiresAt !== undefined) rec.exp = put.expiresAt;
    if (put.ttl !== undefined) rec.ttl = put.ttl;
    if (put.vectors.length) rec.vec = put.vectors.map((v) => [v.field, encodeVector(v.vector)]);
    logOps.push(rec);
  }
  if (ctx.encodeLog) await encodeLogOps(logOps, slicer);
  return { puts, queryVectors, logOps };
}
