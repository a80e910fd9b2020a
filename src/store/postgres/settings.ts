import type { IndexConfig } from "@langchain/langgraph-checkpoint";
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
   * Search-time beam width (`hnsw.ef_search`, raised to k when k is larger;
   * pgvector's iterative scan walks further when a filter needs it). 100 gave
   * recall@10 0.962 at 100k embedding-like 512-d vectors; see docs/postgres.md
   * for the measured recall at each value.
   * @default 300
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
   * server's cores (docs/postgres.md, "Puts"). `false`: every write inserts
   * its vectors into the index itself, in its own transaction.
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
   * small. Sustained bulk writes then run at the rate the index takes them.
   * @default 2000
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
   * @default undefined
   */
  index?: IndexConfig;
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
   * @default { m: 16, efConstruction: 64, efSearch: 300, exactScanThreshold: 2000, deferredIndexing: true, indexWorkers: 2, maxPendingVectors: 2000 }
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
