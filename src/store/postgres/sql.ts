import { endianness } from "node:os";
import type { QueryResult, QueryResultRow } from "pg";

/** What the store needs from a `pg` client or pool. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
}

/** Collects positional parameters while a statement is built. */
export class Params {
  readonly values: unknown[] = [];
  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The store's table names, quoted and schema-qualified. */
export interface Tables {
  schema: string;
  items: string;
  vectors: string;
  /** New vectors not yet in the HNSW index (see IndexSettler). */
  pending: string;
  meta: string;
  migrations: string;
  /** Unquoted names, for index names and size queries. */
  raw: { items: string; vectors: string; pending: string; meta: string; migrations: string };
}

const IDENT = /^[a-z_][a-z0-9_]{0,40}$/;

/** True when `s` is a safe lower-case SQL identifier (we never quote user input). */
export const isIdentifier = (s: string): boolean => IDENT.test(s);

export function tables(schema: string, prefix: string): Tables {
  const raw = { items: `${prefix}items`, vectors: `${prefix}vectors`, pending: `${prefix}pending_vectors`, meta: `${prefix}meta`, migrations: `${prefix}migrations` };
  const q = (t: string) => `"${schema}"."${t}"`;
  return { schema, items: q(raw.items), vectors: q(raw.vectors), pending: q(raw.pending), meta: q(raw.meta), migrations: q(raw.migrations), raw };
}

/**
 * The namespace as stored: labels joined with `.`. Labels never contain `.`
 * (validateNamespace refuses it), so the join is reversible and a prefix
 * matches whole labels only.
 */
export const nsPath = (namespace: readonly string[]): string => namespace.join(".");
export const nsLabels = (path: string): string[] => path.split(".");

/**
 * SQL that selects rows whose namespace is `prefix` or lies under it, by whole
 * labels: equality, or the byte range [`p.`, `p/`) of the `COLLATE "C"`
 * column (`/` follows `.`), which the primary-key btree serves. Never `LIKE`:
 * users `u1` and `u10` stay apart.
 */
export function scopeSql(column: string, prefix: readonly string[], params: Pick<Params, "add">): string {
  if (prefix.length === 0) return "TRUE";
  const p = nsPath(prefix);
  // One btree range [p, p/) that stops early under a LIMIT (an OR of two ranges is planned as a
  // bitmap that reads every entry first), then the check that keeps `p` and `p.…` only (not `p-x`).
  const exact = params.add(p);
  return `(${column} >= ${exact} AND ${column} < ${params.add(`${p}/`)} AND (${column} = ${exact} OR ${column} >= ${params.add(`${p}.`)}))`;
}

/**
 * Writes values into the statement as literals instead of parameters (an
 * `E'…'` string, read the same whatever `standard_conforming_strings` says).
 * For a value the plan depends on: a prepared statement's generic plan is
 * made without its parameters, and with a namespace range as parameters the
 * planner guesses it selects 0.5% of the rows and sorts them instead of
 * walking the HNSW index (240 ms instead of 25 ms at 20k items, from the
 * sixth run of a statement on). Namespaces hold no NUL (validateNamespace).
 */
export const literals: Pick<Params, "add"> = {
  add: (value: unknown) => `E'${String(value).replace(/\\/g, "\\\\").replace(/'/g, "''")}'`,
};

/**
 * Parameters whose values the planner does not look at, even when it plans
 * for the values at hand: each is read through an InitPlan (`(SELECT $n::text)`),
 * so the custom plans of a prepared statement are costed as its generic plan
 * is, and PostgreSQL keeps the generic one (planned once per connection)
 * instead of planning on every call. For a namespace range that an index
 * reads either way: with the values visible, one user's exact ranking was
 * planned again on every call (its generic plan is costed for a range of
 * 0.5% of the table, above the custom plans' estimate), 0.3-0.5 ms each.
 * For an id list (`type` `text[]`): a custom plan counts the array's
 * elements, the generic plan guesses 10, so a list of fewer than 10 ids
 * was planned again on every call; read through an InitPlan, both guess 10.
 */
export const opaque = (params: Params, type = "text"): Pick<Params, "add"> => ({ add: (value: unknown) => `(SELECT ${params.add(value)}::${type})` });

/** SQL for "not expired at `now`". */
export const liveSql = (alias: string, now: number, params: Params): string =>
  `(${alias}.expires_at IS NULL OR ${alias}.expires_at > ${params.add(now)})`;

/**
 * pgvector's binary form of a vector (`vector_recv`: int16 dims, int16
 * unused, then big-endian float4s). `pg` sends a Buffer parameter in binary
 * format, so the server does not parse 512 decimal floats per query (over
 * 1 ms in PGlite, more than the whole index walk at small sizes).
 */
export function vectorParam(v: ArrayLike<number>): Buffer {
  const out = Buffer.allocUnsafe(4 + 4 * v.length);
  // The floats written straight into the buffer through a Float32Array over it (the same
  // round-to-nearest as writeFloatBE), then one byte swap of the whole buffer on little-endian
  // machines, header after: one allocation and no copy (3 µs instead of 7-9 for 512 dimensions).
  // Node's buffer pool hands out 8-byte-aligned slices; an unaligned one is copied instead.
  if (out.byteOffset % 4 === 0) new Float32Array(out.buffer, out.byteOffset + 4, v.length).set(v);
  else Buffer.from(Float32Array.from(v).buffer).copy(out, 4);
  if (LITTLE_ENDIAN) out.swap32();
  out.writeInt16BE(v.length, 0);
  out.writeInt16BE(0, 2);
  return out;
}

const LITTLE_ENDIAN = endianness() === "LE";

/**
 * A subquery over both vector tables: the indexed one and the pending one
 * (vectors written but not yet moved into the HNSW index by IndexSettler).
 * A vector is in exactly one of them in any snapshot (the move is one
 * transaction), so a read sees every committed write once.
 */
export const everyVector = (t: Tables, select: (table: string) => string): string => `((${select(t.vectors)}) UNION ALL (${select(t.pending)}))`;

/** How many rows `table` holds, counting no further than `upTo` (a bound keeps the count cheap on a large table). */
export async function rowsUpTo(db: Queryable, table: string, upTo: number): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} LIMIT $1) c`, [upTo]);
  return r.rows[0].n;
}

/**
 * An item's id in the store's own maps and sets (a search's ranking, a write
 * batch's runs, an export's vectors): its namespace path and key
 * joined by NUL, which neither can contain (PostgreSQL's text and jsonb
 * refuse it), so the id is unambiguous and {@link idPair} splits it back.
 */
export const rowId = (ns: string, key: string): string => `${ns}\0${key}`;

/** The namespace path and key of a {@link rowId}. */
export function idPair(id: string): [string, string] {
  const at = id.indexOf("\0");
  return [id.slice(0, at), id.slice(at + 1)];
}
