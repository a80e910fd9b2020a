import type { Embeddings } from "@langchain/core/embeddings";
import { encodeVector } from "../../embeddings/vector-codec.js";
import type { MemoryEntry } from "../../migrate/entry.js";
import { extractFieldTexts } from "../fields.js";
import { validateNamespace } from "../namespace.js";
import { validateValue } from "../validate-value.js";
import { validateKey } from "../text-rules.js";
import { embedTexts } from "./prepare-batch.js";
import type { PreparedPut, StoreState } from "./store-state.js";
import { TimeSlicer } from "../../time-slice.js";
import { APPLY_SLICE_MS } from "./settings.js";
import type { LogOp } from "./write-ahead-log.js";

/** Every item of the state, sorted by id, as migration entries (vectors read back from the index). */
export function* stateEntries(state: StoreState, batchSize: number, withVectors: boolean): Iterable<MemoryEntry[]> {
  const items = [...state.items.items()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 0; i < items.length; i += batchSize) {
    yield items.slice(i, i + batchSize).map((it) => {
      const e: MemoryEntry = { namespace: [...it.namespace], key: it.key, value: structuredClone(it.value), createdAt: it.createdAt, updatedAt: it.updatedAt };
      if (it.expiresAt !== undefined) e.expiresAt = it.expiresAt;
      if (it.ttl !== undefined) e.ttl = it.ttl;
      if (it.index !== undefined) e.index = it.index;
      if (withVectors && state.vectors) e.vectors = it.vectors.map((v) => ({ field: v.field, vector: Array.from(state.vectors!.vector(v.label)) }));
      return e;
    });
  }
}

/**
 * Entries as prepared puts with log ops: vectors kept, or embedded (one call)
 * for entries that have none, when the store has an index.
 */
async function prepareImport(
  entries: MemoryEntry[],
  state: StoreState,
  index: { embeddings: Embeddings; dims: number } | undefined,
): Promise<{ put: PreparedPut; op: LogOp; entry: MemoryEntry }[]> {
  const embedded = new Map<number, { field: string; text: string }[]>();
  const texts = new Set<string>();
  if (index) {
    entries.forEach((e, i) => {
      if (e.vectors) return;
      const fts = extractFieldTexts(e.value, state.pathsFor(e.index));
      embedded.set(i, fts);
      for (const f of fts) texts.add(f.text);
    });
  }
  const vectors = index ? await embedTexts(index.embeddings, [...texts], index.dims) : new Map<string, number[]>();
  return entries.map((e, i) => {
    const vecs = index ? (e.vectors ?? embedded.get(i)!.map((f) => ({ field: f.field, vector: vectors.get(f.text)! }))) : [];
    const put: PreparedPut = { namespace: [...e.namespace], key: e.key, value: structuredClone(e.value), index: e.index, ttl: e.ttl, expiresAt: e.expiresAt, vectors: vecs };
    const op: LogOp = { t: "put", ns: put.namespace, key: put.key, value: put.value };
    if (put.index !== undefined) op.index = put.index;
    if (put.expiresAt !== undefined) op.exp = put.expiresAt;
    if (put.ttl !== undefined) op.ttl = put.ttl;
    if (vecs.length) op.vec = vecs.map((v) => [v.field, encodeVector(v.vector)]);
    return { put, op, entry: e };
  });
}

/** Checks every entry's namespace and value before anything is imported. */
export function validateEntries(entries: MemoryEntry[]): void {
  for (const e of entries) {
    validateNamespace(e.namespace, { forWrite: true });
    validateKey(e.key, `import ${JSON.stringify(e.namespace)}`);
    validateValue(e.value, `import ${JSON.stringify(e.namespace)}/${e.key}`);
  }
}

/**
 * `HNSWStore.importEntries` under the store's write lock: logs each entry as
 * it is (its own record, at its `updatedAt`; only the last one fsynced when
 * `sync`), then applies them to the state keeping `createdAt`. Returns how
 * many were written (the store compacts afterwards when any were).
 */
export async function writeImport(
  state: StoreState,
  entries: MemoryEntry[],
  args: {
    index: { embeddings: Embeddings; dims: number } | undefined;
    writeLog: (at: number, ops: LogOp[], sync: boolean) => Promise<void>;
    sync: boolean;
  },
): Promise<number> {
  const prepared = await prepareImport(entries, state, args.index);
  if (prepared.length === 0) return 0;
  for (const [i, { op, entry }] of prepared.entries()) await args.writeLog(entry.updatedAt, [op], args.sync && i === prepared.length - 1);
  const slicer = new TimeSlicer(APPLY_SLICE_MS);
  for (const { put, entry } of prepared) {
    state.applyPut(put, entry.updatedAt).createdAt = entry.createdAt;
    if (slicer.due) await slicer.pause();
  }
  return prepared.length;
}
