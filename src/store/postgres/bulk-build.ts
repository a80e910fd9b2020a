import { rowsUpTo, type Queryable, type Tables } from "./sql.js";

/** The HNSW index of the vectors table: its name, build settings and the vector size (for the build's memory). */
export interface HnswIndexSpec {
  m: number;
  efConstruction: number;
  dims: number;
}

/** The HNSW index's name (unqualified; it lives in the table's schema). */
export const hnswIndexName = (t: Tables): string => `${t.raw.vectors}_hnsw`;

/** `CREATE INDEX [CONCURRENTLY] IF NOT EXISTS` of the vectors table's HNSW index. */
export function hnswIndexSql(t: Tables, spec: Pick<HnswIndexSpec, "m" | "efConstruction">, concurrently = false): string {
  return `CREATE INDEX${concurrently ? " CONCURRENTLY" : ""} IF NOT EXISTS "${hnswIndexName(t)}" ON ${t.vectors} USING hnsw (embedding vector_cosine_ops) WITH (m = ${spec.m}, ef_construction = ${spec.efConstruction})`;
}

/**
 * The HNSW index as the catalog has it: `valid`, `missing` (dropped for a
 * bulk load), or `invalid` (a `CREATE INDEX CONCURRENTLY` that failed or
 * whose process was killed; PostgreSQL keeps such an index, unused by
 * searches, but still updated by every insert).
 */
export async function hnswIndexState(db: Queryable, t: Tables): Promise<"valid" | "invalid" | "missing"> {
  const r = await db.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)`, [`"${t.schema}"."${hnswIndexName(t)}"`]);
  if (r.rows.length === 0) return "missing";
  return r.rows[0].valid ? "valid" : "invalid";
}

/**
 * Drops the HNSW index for a bulk load (`DROP INDEX CONCURRENTLY`: waits for
 * the searches under way, blocks none). Run outside a transaction.
 */
export async function dropForBulkLoad(db: Queryable, t: Tables): Promise<void> {
  await db.query(`DROP INDEX CONCURRENTLY IF EXISTS "${t.schema}"."${hnswIndexName(t)}"`);
}

/** The most memory a build asks for (`maintenance_work_mem`, this session only). */
const MAX_BUILD_MEMORY_MB = 512;

/**
 * Builds the HNSW index over the rows the table holds, in one pass
 * (`CREATE INDEX CONCURRENTLY`, which blocks neither searches nor writes;
 * rows written during the build are added to it before it is used), unless
 * a valid one exists. An invalid index (a build that failed or was killed)
 * is dropped and built again. One build at a time across processes (a
 * session advisory lock): a second caller waits for the first and then
 * finds the index valid. Run on a session outside a transaction; the
 * session's `statement_timeout` and `maintenance_work_mem` are restored.
 * Then ANALYZEs the table. Returns true when it built the index.
 */
export async function buildHnswIndex(db: Queryable, t: Tables, spec: HnswIndexSpec): Promise<boolean> {
  const lock = `langgraph-hnsw-memory:build:${t.vectors}`;
  await db.query("SELECT pg_advisory_lock(hashtext($1))", [lock]);
  try {
    const state = await hnswIndexState(db, t);
    if (state === "valid") return false;
    if (state === "invalid") await dropForBulkLoad(db, t);
    const rows = await rowsUpTo(db, t.vectors, Number.MAX_SAFE_INTEGER);
    // pgvector builds the graph in memory while it fits `maintenance_work_mem`, and inserts the rest
    // row by row, several times slower: ask for room for each vector and its neighbour lists.
    const wantMb = Math.min(MAX_BUILD_MEMORY_MB, Math.ceil((rows * (spec.dims * 4 + 16 * spec.m * 2 + 256) * 1.2) / 2 ** 20));
    const prev = (await db.query<{ timeout: string; mem: string; memMb: number }>(
      `SELECT current_setting('statement_timeout') AS timeout, current_setting('maintenance_work_mem') AS mem,
         (SELECT setting::bigint * (CASE unit WHEN 'kB' THEN 1024 WHEN 'MB' THEN 1048576 ELSE 1 END) / 1048576 FROM pg_settings WHERE name = 'maintenance_work_mem')::int AS "memMb"`,
    )).rows[0];
    await db.query("SET statement_timeout = 0");
    if (wantMb > prev.memMb) await db.query(`SET maintenance_work_mem = '${wantMb}MB'`);
    try {
      await db.query(hnswIndexSql(t, spec, true));
      // The build records the table's size but no column statistics: without them the planner
      // guessed that 17 of 10,000 rows lie under a prefix of every row, priced the walk for a page
      // of 10 at most of the index, and sorted the whole table instead (40-60 ms against 7 ms).
      await db.query(`ANALYZE ${t.vectors}`);
    } finally {
      await db.query(`SET statement_timeout = '${prev.timeout}'`);
      await db.query(`SET maintenance_work_mem = '${prev.mem}'`);
    }
    return true;
  } finally {
    await db.query("SELECT pg_advisory_unlock(hashtext($1))", [lock]);
  }
}
