import { tokenize } from "../../embeddings/tokenize.js";
import { allStrings, extractFieldTexts } from "../fields.js";
import type { PreparedPut } from "../hnsw/store-state.js";
import { nsPath, rowId, vectorParam, type Queryable, type Tables } from "./sql.js";
import { byItem } from "./write-order.js";

/** The paths indexed for an item: its put override, or the store's fields. */
export function pathsFor(index: false | string[] | undefined, fields: string[] | null): string[] {
  if (index === false) return [];
  return index ?? fields ?? [];
}

/** The texts an item is found by in keyword search, as HNSWStore picks them (every string of the value for `"$"` or no index). */
export function keywordTexts(value: Record<string, unknown>, index: false | string[] | undefined, fields: string[] | null): string[] {
  if (index === false) return [];
  const paths = pathsFor(index, fields);
  return paths.length === 0 || paths.includes("$") ? allStrings(value) : extractFieldTexts(value, paths).map((f) => f.text);
}

/**
 * The same texts tokenised and stemmed by the keyword ranker's tokenizer,
 * stored as a `simple` tsvector so PostgreSQL matches exactly these terms.
 */
export const keywordTerms = (value: Record<string, unknown>, index: false | string[] | undefined, fields: string[] | null): string =>
  boundedTerms(tokenize(keywordTexts(value, index, fields).join(" "))).join(" ");

/** What a tsvector may hold (PostgreSQL refuses over 1 MB), with room to spare. */
export const TSVECTOR_BUDGET = 900_000;

/**
 * The terms to store, so that their tsvector stays under
 * {@link TSVECTOR_BUDGET}: all of them when they fit (each distinct term
 * costs its bytes, a 4-byte entry and 2 bytes per position, at most 256);
 * else each distinct term once, as many as fit, in order of first use. A
 * very long text is then still stored whole and found by those terms (its
 * keyword rank no longer counts repeats), where PostgreSQL would refuse it
 * ("string is too long for tsvector").
 */
export function boundedTerms(terms: string[]): string[] {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  let size = 0;
  for (const [t, n] of counts) size += Buffer.byteLength(t) + 6 + 2 * Math.min(n, 256);
  if (size <= TSVECTOR_BUDGET) return terms;
  const out: string[] = [];
  size = 0;
  for (const t of counts.keys()) {
    size += Buffer.byteLength(t) + 8;
    if (size > TSVECTOR_BUDGET) break;
    out.push(t);
  }
  return out;
}

/** A put or delete, ready to write. */
export type WriteOp = { kind: "put"; put: PreparedPut } | { kind: "delete"; namespace: string[]; key: string };

/**
 * Where new vectors go: the pending table (moved into the HNSW index later,
 * by IndexSettler), the indexed table itself, or nowhere (no index).
 */
export type VectorTarget = "pending" | "indexed" | null;

/**
 * Writes consecutive puts and deletes. Runs of puts with distinct ids go in
 * one multi-row upsert (`INSERT … ON CONFLICT DO UPDATE`, keeping
 * `created_at`), with their old vectors deleted and new ones inserted; a
 * repeated id starts a new run, so later writes win as they do one by one.
 * Returns how many vectors it wrote (to `target`).
 */
export async function writeRun(db: Queryable, t: Tables, ops: WriteOp[], now: number, fields: string[] | null, target: VectorTarget): Promise<number> {
  let vectors = 0;
  let run: WriteOp[] = [];
  let ids = new Set<string>();
  const flush = async () => {
    if (run.length === 0) return;
    const kind = run[0].kind;
    // The run's rows in the one order every writer locks them in (see write-order.ts).
    if (kind === "put") vectors += await upsert(db, t, run.map((o) => (o as { put: PreparedPut }).put).sort(byItem), now, fields, target);
    else await remove(db, t, run as { namespace: string[]; key: string }[]);
    run = [];
    ids = new Set();
  };
  for (const op of ops) {
    const ns = op.kind === "put" ? op.put.namespace : op.namespace;
    const key = op.kind === "put" ? op.put.key : op.key;
    const id = rowId(nsPath(ns), key);
    if (run.length && (run[0].kind !== op.kind || ids.has(id))) await flush();
    run.push(op);
    ids.add(id);
  }
  await flush();
  return vectors;
}

/** Timestamps to write as they are (an import), instead of `now` for both. */
export interface Stamps {
  createdAt: number[];
  updatedAt: number[];
}

/** Upserts the items and replaces their vectors; returns how many vectors it wrote (to `target`). */
export async function upsert(db: Queryable, t: Tables, puts: PreparedPut[], now: number, fields: string[] | null, target: VectorTarget, stamps?: Stamps): Promise<number> {
  const ns = puts.map((p) => nsPath(p.namespace));
  const keys = puts.map((p) => p.key);
  await db.query(
    `INSERT INTO ${t.items} (ns, key, value, index_fields, created_at, updated_at, expires_at, ttl_minutes, tsv)
     SELECT u.ns, u.key, u.value::jsonb, u.idx::jsonb, COALESCE(u.created, $5), COALESCE(u.updated, $5), u.exp, u.ttl, to_tsvector('simple', u.txt)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $6::bigint[], $7::float8[], $8::text[], $9::bigint[], $10::bigint[])
       AS u(ns, key, value, idx, exp, ttl, txt, created, updated)
     ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, index_fields = EXCLUDED.index_fields, updated_at = EXCLUDED.updated_at,
       expires_at = EXCLUDED.expires_at, ttl_minutes = EXCLUDED.ttl_minutes, tsv = EXCLUDED.tsv${stamps ? ", created_at = EXCLUDED.created_at" : ""}`,
    [
      ns,
      keys,
      puts.map((p) => JSON.stringify(p.value)),
      puts.map((p) => (p.index === undefined ? null : JSON.stringify(p.index))),
      now,
      puts.map((p) => p.expiresAt ?? null),
      puts.map((p) => p.ttl ?? null),
      puts.map((p) => keywordTerms(p.value, p.index, fields)),
      stamps?.createdAt ?? puts.map(() => null),
      stamps?.updatedAt ?? puts.map(() => null),
    ],
  );
  if (target === null) return 0;
  await removeVectors(db, t, ns, keys);
  const rows: { ns: string; key: string; field: string; vector: ArrayLike<number> }[] = [];
  puts.forEach((p, i) => {
    for (const v of p.vectors) rows.push({ ns: ns[i], key: keys[i], field: v.field, vector: v.vector });
  });
  const into = target === "pending" ? t.pending : t.vectors;
  for (let s = 0; s < rows.length; s += VECTOR_ROWS_PER_INSERT) await insertVectors(db, into, rows.slice(s, s + VECTOR_ROWS_PER_INSERT));
  return rows.length;
}

/**
 * Deletes the items' old vectors: the pending ones first, then the indexed
 * ones. The order matters against IndexSettler, which moves a pending row
 * in one transaction: a delete of that row waits for the move to commit,
 * and the next statement (a new snapshot under READ COMMITTED) then finds
 * the moved row in the indexed table. The other way round, a row moved in
 * between would be missed and a stale vector kept.
 */
async function removeVectors(db: Queryable, t: Tables, ns: string[], keys: string[]): Promise<void> {
  for (const table of [t.pending, t.vectors]) {
    await db.query(`DELETE FROM ${table} WHERE (ns, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, [ns, keys]);
  }
}

/** Vectors per INSERT (4 parameters each; PostgreSQL allows 65535). */
const VECTOR_ROWS_PER_INSERT = 1000;

/**
 * One multi-row INSERT whose vectors go as binary parameters (pgvector's
 * `vector_recv`), so the server does not parse 512 decimal floats per vector
 * as the text form made it do: 567 against 423 rows/s for 4,000 512-d
 * vectors into an HNSW-indexed table on the bench machine (bench:postgres
 * puts, see docs/postgres.md).
 */
async function insertVectors(db: Queryable, table: string, rows: { ns: string; key: string; field: string; vector: ArrayLike<number> }[]): Promise<void> {
  const values: unknown[] = [];
  const tuples = rows.map((r, j) => {
    values.push(r.ns, r.key, r.field, vectorParam(r.vector));
    return `($${4 * j + 1}, $${4 * j + 2}, $${4 * j + 3}, $${4 * j + 4}::vector)`;
  });
  await db.query(`INSERT INTO ${table} (ns, key, field, embedding) VALUES ${tuples.join(", ")}`, values);
}

async function remove(db: Queryable, t: Tables, ops: { namespace: string[]; key: string }[]): Promise<void> {
  // Vectors go with their item (ON DELETE CASCADE).
  await db.query(`DELETE FROM ${t.items} WHERE (ns, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, [
    ops.map((o) => nsPath(o.namespace)),
    ops.map((o) => o.key),
  ]);
}
