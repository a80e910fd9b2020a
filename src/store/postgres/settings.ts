import type { IndexConfig } from "@langchain/langgraph-checkpoint";
import type { StoreIndexConfig } from "../index-config.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import type { TTLConfig } from "../ttl.js";

// The store's settings that do not involve the `pg` driver's types, so that
// declarations which mention them (memoryStoreFromEnv in the main entry)
// compile in projects that never install `pg`.

/** pgvector HNSW settings and the search plan's threshold. */
export interface PostgresHnswOptions {
  /**
   * Graph degree of the pgvector HNSW index (`m`). Fixed when the table is created.
   * @default 16
   */
  m?: number;
  /**
   * Build-time beam width (`ef_construction`). Fixed when the table is created.
   * @default 64
   */
  efConstruction?: number;
  /**
   * Search-time beam width (`hnsw.ef_search`). When set, every index walk
   * uses it as it is (pgvector's iterative scan walks further when a filter
   * or a deep page needs it; without iterative scans, before pgvector 0.8,
   * it is raised to the walk's depth). Unset, it fits the table: 100 up to
   * 25,000 indexed vectors, 200 up to 150,000, 300 beyond, from the recall
   * measured at each size (docs/postgres.md, "efSearch").
   * @default fits the table (100 / 200 / 300)
   */
  efSearch?: number;
  /**
   * A search whose prefix and filter select at most this many items is
   * answered exactly (every vector of those items is compared), instead of
   * through the HNSW index.
   * @default 2000
   */
  exactScanThreshold?: number;
  /**
   * Writes put new vectors in a table without the HNSW index (the pending
   * table, compared exactly by every search, so nothing written is missed)
   * and background workers move them into the index, several at once.
   * pgvector's per-row HNSW insert is nearly the whole cost of a put; this
   * takes it out of the writer's transaction and spreads it over the
   * server's cores (docs/postgres.md, "Puts"). A bulk load into a store
   * whose index holds at most 5,000 vectors drops the index and builds it
   * again in one pass when the load ends (`flushIndex()`, a quiet second,
   * 50,000 rows, `close()`), searches comparing every vector exactly until
   * then. `false`: every write inserts its vectors into the index itself,
   * in its own transaction.
   * @default true
   */
  deferredIndexing?: boolean;
  /**
   * Background workers of this store that move pending vectors into the
   * HNSW index, each on its own connection while it works (rows are claimed
   * with `SKIP LOCKED`, so the workers of several processes share the work).
   * 0: none in this process (other processes', and writers waiting past
   * `maxPendingVectors`, move them).
   * @default 2 (1 on PGlite, which runs one query at a time)
   */
  indexWorkers?: number;
  /**
   * A write waits before it starts (and helps move rows) while more vectors
   * than this are pending, so that the exact part of every search stays
   * small: a search compares every pending vector in its scope exactly
   * (well under a microsecond of the server's CPU each for 512 dims) beside
   * an HNSW walk that costs about in proportion to `efSearch`. Unset, the
   * bound follows the beam: 2.5 pending vectors per unit of `efSearch` (250
   * up to 25,000 indexed vectors, 500 up to 150,000, 750 beyond), and 1,000
   * during a bulk load, when every search is exact anyway. A larger bound
   * lets a burst of writes be acknowledged further ahead of the index, at
   * that price to every search meanwhile. Sustained writes run at the rate
   * the index takes them either way.
   * @default 2.5 × efSearch (1000 during a bulk load)
   */
  maxPendingVectors?: number;
}

/** The settings of a {@link PostgresMemoryStore} other than how it connects. */
export interface PostgresStoreSettings {
  /**
   * Longest a statement may run, in milliseconds (`SET LOCAL statement_timeout`
   * in every transaction, also on a caller's pool). A statement over it is
   * cancelled by the server and the batch fails with `DatabaseTimeoutError`,
   * nothing applied.
   * @default 30000
   */
  statementTimeoutMs?: number;
  /**
   * How long a batch keeps retrying on a new connection when the connection
   * is lost or refused before `COMMIT` (server restart, failover,
   * `pg_terminate_backend`), in milliseconds. After it, or when the
   * connection is lost during `COMMIT`, the batch fails with
   * `DatabaseConnectionError` (`mayHaveApplied` says which). 0: no retry.
   * @default 10000
   */
  connectionRetryMs?: number;
  /**
   * The PostgreSQL schema that holds the tables (created if missing).
   * @default "public"
   */
  schema?: string;
  /**
   * Prefix of the table names (`<prefix>items`, `<prefix>vectors`, `<prefix>meta`, `<prefix>migrations`).
   * @default "memory_"
   */
  tablePrefix?: string;
  /**
   * Semantic search, as InMemoryStore's `IndexConfig` (`{ dims, embeddings, fields }`;
   * `fields` defaults to `["$"]`). Needs the pgvector extension. Without it,
   * searches with a `query` are ranked by keywords and pgvector is not needed.
   * `queryAdapter` as in HNSWStore's `index`.
   * @default undefined
   */
  index?: IndexConfig & Pick<StoreIndexConfig, "queryAdapter">;
  /**
   * How searches with a `query` rank items, as in HNSWStore.
   * @default "hybrid" with an index, "keyword" without
   */
  retrieval?: RetrievalMode;
  /**
   * Time-to-live for items.
   * @default undefined (items never expire)
   */
  ttl?: TTLConfig;
  /**
   * pgvector HNSW tuning.
   * @default { m: 16, efConstruction: 64, efSearch: fits the table, exactScanThreshold: 2000, deferredIndexing: true, indexWorkers: 2, maxPendingVectors: 2.5 × efSearch }
   */
  hnsw?: PostgresHnswOptions;
  /**
   * Runs the search statements as named prepared statements (one per SQL
   * shape, at most 200 per connection), so that each connection parses and
   * plans a shape once. On the bench machine (loaded, 10k items) one user's
   * search took 1.2 ms with them and 1.6 ms without (hybrid: 2.1 and 3.2 ms).
   * Turn it off behind a pooler in transaction mode that does not keep
   * prepared statements (PgBouncer before 1.21, or without
   * `max_prepared_statements`).
   * @default true
   */
  preparedStatements?: boolean;
  /**
   * Gives each connection the index walk's settings (`hnsw.ef_search`,
   * `hnsw.iterative_scan`, `jit`, `max_parallel_workers_per_gather`) once, at
   * session level, so that a search is one round trip instead of three
   * (`BEGIN; SET LOCAL …`, the statement, `COMMIT`). Only for connections
   * the store alone uses: off for a caller's `pool` (whose other queries
   * would inherit the settings) and behind a pooler in transaction mode.
   * @default true for the pool the store creates, false for a caller's `pool` and on PGlite
   */
  sessionSettings?: boolean;
  /**
   * Overrides the embedder identity recorded in the meta table.
   * @default derived from the embedder's class and model name
   */
  embedderIdentity?: string;
  /**
   * Times a batch is retried when PostgreSQL aborts it for a deadlock or a
   * serialization failure (another process touched the same rows).
   * @default 5
   */
  maxRetries?: number;
  /**
   * Clock in milliseconds since the epoch (tests inject one for TTL).
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Where warnings go (embedder failures, sweeper errors, connections the
   * server ended, reconnections).
   * @default console
   */
  logger?: Pick<Console, "warn">;
}
