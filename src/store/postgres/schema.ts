import { IncompatibleStoreError } from "../../errors.js";
import { hnswIndexSql } from "./bulk-build.js";
import type { Queryable, Tables } from "./sql.js";

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = 2;

/** Versioned migrations, applied in order by `setup()` and recorded in the migrations table. */
const MIGRATIONS: { version: number; name: string; sql: (t: Tables) => string[] }[] = [
  {
    version: 1,
    name: "items, full-text index and metadata",
    sql: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t.items} (
        ns text COLLATE "C" NOT NULL,
        key text NOT NULL,
        value jsonb NOT NULL,
        index_fields jsonb,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        expires_at bigint,
        ttl_minutes double precision,
        tsv tsvector NOT NULL,
        PRIMARY KEY (ns, key)
      )`,
      `CREATE INDEX IF NOT EXISTS "${t.raw.items}_updated" ON ${t.items} (updated_at DESC)`,
      `CREATE INDEX IF NOT EXISTS "${t.raw.items}_expires" ON ${t.items} (expires_at) WHERE expires_at IS NOT NULL`,
      `CREATE INDEX IF NOT EXISTS "${t.raw.items}_tsv" ON ${t.items} USING gin (tsv)`,
      `CREATE TABLE IF NOT EXISTS ${t.meta} (name text PRIMARY KEY, value jsonb NOT NULL)`,
    ],
  },
  {
    // The pending table itself is made with the vectors table (below), as only a store
    // with an index has one. This version is recorded so that older code, which would
    // neither search nor replace pending vectors, refuses these tables.
    version: 2,
    name: "new vectors wait in the pending table until moved into the HNSW index",
    sql: () => [],
  },
];

/** What the store records about its vectors, and checks on every open. */
export interface IndexManifest {
  space: "cosine";
  dims: number;
  embedder: string;
  fields: string[];
}

export interface SetupOptions {
  /** The wanted vector index, or null for a store without one. */
  index: IndexManifest | null;
  /** HNSW build settings for a new vector table. */
  m: number;
  efConstruction: number;
}

export interface SetupResult {
  schemaVersion: number;
  /** pgvector's version, when the vector table is in use. */
  pgvector?: string;
}

/**
 * Brings the schema up to date and checks the recorded embedder under an
 * advisory lock, so that several processes starting together apply each
 * migration once. Run inside one transaction (the caller's).
 */
export async function setupSchema(db: Queryable, t: Tables, options: SetupOptions): Promise<SetupResult> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`langgraph-hnsw-memory:${t.items}`]);
  await db.query(`CREATE SCHEMA IF NOT EXISTS "${t.schema}"`);
  await db.query(`CREATE TABLE IF NOT EXISTS ${t.migrations} (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
  const done = await db.query<{ version: number }>(`SELECT version FROM ${t.migrations} ORDER BY version`);
  const applied = new Set(done.rows.map((r) => Number(r.version)));
  const newest = Math.max(0, ...applied);
  if (newest > SCHEMA_VERSION) {
    throw new IncompatibleStoreError(`tables ${t.items} use schema version ${newest}, newer than this package's ${SCHEMA_VERSION}; upgrade langgraph-hnsw-memory`);
  }
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    for (const statement of m.sql(t)) await db.query(statement);
    await db.query(`INSERT INTO ${t.migrations} (version, name, applied_at) VALUES ($1, $2, $3)`, [m.version, m.name, Date.now()]);
  }
  const result: SetupResult = { schemaVersion: SCHEMA_VERSION };
  const stored = (await db.query<{ value: IndexManifest }>(`SELECT value FROM ${t.meta} WHERE name = 'index'`)).rows[0]?.value ?? null;
  const wanted = options.index;
  await checkCompatible(db, t, stored, wanted);
  if (wanted) {
    await createVectorExtension(db);
    result.pgvector = (await db.query<{ v: string }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'")).rows[0]?.v;
    // The indexed vectors, and the pending ones: same columns, no HNSW index (written by puts,
    // searched exactly, emptied by IndexSettler).
    for (const table of [t.vectors, t.pending]) {
      await db.query(`CREATE TABLE IF NOT EXISTS ${table} (
        ns text COLLATE "C" NOT NULL,
        key text NOT NULL,
        field text NOT NULL,
        embedding vector(${wanted.dims}) NOT NULL,
        PRIMARY KEY (ns, key, field),
        FOREIGN KEY (ns, key) REFERENCES ${t.items} (ns, key) ON DELETE CASCADE
      ) WITH (toast_tuple_target = ${TOAST_TUPLE_TARGET})`);
    }
    await keepVectorsInline(db, t);
    await vacuumPendingOften(db, t);
    // Also when a bulk load's process stopped before it built the index again (IndexSettler).
    await db.query(hnswIndexSql(t, options));
    if (!stored) await db.query(`INSERT INTO ${t.meta} (name, value) VALUES ('index', $1)`, [JSON.stringify(wanted)]);
  }
  return result;
}

/** The largest `toast_tuple_target` PostgreSQL accepts (a heap page's room for one tuple). */
const TOAST_TUPLE_TARGET = 8160;

/**
 * Keeps each vector in its row instead of in the TOAST table. A 512-d vector
 * is 2 KB, just over PostgreSQL's default 2 KB threshold, so every vector
 * went out of line, and an exact search of one user's 100 items read the
 * TOAST index and two chunks per vector (0.40 against 0.24 ms of execution
 * in EXPLAIN ANALYZE; the HNSW walk recomputes each row's distance from the
 * heap too). With the target at its maximum, only a row that does not fit a
 * page is still moved out. Tables created before get the setting here (a
 * catalog change under a lock that blocks neither reads nor writes); their
 * older rows stay as they are, still correct, until rewritten.
 */
async function keepVectorsInline(db: Queryable, t: Tables): Promise<void> {
  const r = await db.query<{ o: string[] | null }>(`SELECT reloptions AS o FROM pg_class WHERE oid = to_regclass($1)`, [t.vectors]);
  if ((r.rows[0]?.o ?? []).includes(`toast_tuple_target=${TOAST_TUPLE_TARGET}`)) return;
  await db.query(`ALTER TABLE ${t.vectors} SET (toast_tuple_target = ${TOAST_TUPLE_TARGET})`);
}

/** Autovacuum settings of the pending table (see vacuumPendingOften). */
const PENDING_AUTOVACUUM = ["autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=1000", "autovacuum_analyze_scale_factor=0", "autovacuum_analyze_threshold=1000"];

/**
 * The pending table is small and churns: every vector written passes through
 * it and leaves a dead row when moved. The store's workers VACUUM it when
 * they drain it (IndexSettler); these settings make autovacuum come after a
 * thousand dead rows, not after 20% of the table plus 50, for rows moved by
 * processes that do not (no workers, or a role that may not VACUUM).
 */
async function vacuumPendingOften(db: Queryable, t: Tables): Promise<void> {
  const r = await db.query<{ o: string[] | null }>(`SELECT reloptions AS o FROM pg_class WHERE oid = to_regclass($1)`, [t.pending]);
  const have = r.rows[0]?.o ?? [];
  if (PENDING_AUTOVACUUM.every((o) => have.includes(o))) return;
  await db.query(`ALTER TABLE ${t.pending} SET (${PENDING_AUTOVACUUM.map((o) => o.replace("=", " = ")).join(", ")})`);
}

/** The same checks HNSWStore makes when it opens a directory. */
async function checkCompatible(db: Queryable, t: Tables, stored: IndexManifest | null, wanted: IndexManifest | null): Promise<void> {
  const where = `tables ${t.items}`;
  if (!stored && !wanted) return;
  if (!stored && wanted) {
    const n = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${t.items}`)).rows[0].n);
    if (n === 0) return;
    throw new IncompatibleStoreError(`${where} hold ${n} items without vectors, but an index was configured; migrate them into a store with an index (migrateStore) instead`);
  }
  if (stored && !wanted) {
    throw new IncompatibleStoreError(`${where} hold vectors built by ${stored.embedder} (${stored.dims} dims); open them with the same \`index\` config`);
  }
  const s = stored!;
  const w = wanted!;
  if (s.dims !== w.dims) throw new IncompatibleStoreError(`${where} hold ${s.dims}-dim vectors, but index.dims is ${w.dims}; use the original embedder`);
  if (s.embedder !== w.embedder) {
    throw new IncompatibleStoreError(`${where} were embedded with ${s.embedder}, but the configured embedder is ${w.embedder}; open them with the original embedder, or migrate into new tables`);
  }
}

/**
 * `CREATE EXTENSION IF NOT EXISTS vector`, with a message that says what to
 * do when the server has no pgvector or the role may not create it.
 */
async function createVectorExtension(db: Queryable): Promise<void> {
  if ((await db.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'")).rows.length) return;
  try {
    // One creator at a time across schemas (two concurrent CREATE EXTENSIONs collide on pg_extension).
    await db.query("SELECT pg_advisory_xact_lock(hashtext('langgraph-hnsw-memory:create extension vector'))");
    await db.query("CREATE EXTENSION IF NOT EXISTS vector");
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === "42501") {
      throw new IncompatibleStoreError(`this role may not create the pgvector extension (${e.message}); run \`CREATE EXTENSION vector;\` once as a superuser or the database owner, or open the store without \`index\``);
    }
    if (e.code === "0A000" || e.code === "58P01" || /extension "vector" is not available|could not open extension control file/.test(e.message ?? "")) {
      throw new IncompatibleStoreError(`the PostgreSQL server has no pgvector extension (${e.message}); install pgvector (e.g. the pgvector/pgvector Docker image, or your distribution's postgresql-NN-pgvector package), or open the store without \`index\``);
    }
    throw err;
  }
}
