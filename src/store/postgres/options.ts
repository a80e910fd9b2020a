import type { Pool, PoolConfig } from "pg";
import type { PostgresHnswOptions, PostgresStoreSettings } from "./settings.js";

export type { PostgresHnswOptions, PostgresStoreSettings };

/** Options for {@link PostgresMemoryStore}. */
export interface PostgresMemoryStoreOptions extends PostgresStoreSettings {
  /**
   * A PostgreSQL connection string (`postgres://user:pass@host:5432/db`). The
   * store creates its own `pg` Pool and ends it on `close()`.
   * @default undefined (then `pool` is required)
   */
  connectionString?: string;
  /**
   * A `pg` Pool of the caller's. The store never ends it.
   * @default undefined
   */
  pool?: Pool;
  /**
   * Settings for the pool the store creates from `connectionString`, over
   * the store's defaults: a bounded pool of `max: 10` connections, idle ones
   * closed after `idleTimeoutMillis: 30000`, and `connectionTimeoutMillis:
   * 10000` to wait for a free connection (pg's own default waits forever).
   * Against a PGlite socket server, `max` must not exceed the server's
   * `maxConnections` (default 1), or the extra connections are closed at once
   * ("Connection terminated unexpectedly").
   * @default { max: 10, idleTimeoutMillis: 30000, connectionTimeoutMillis: 10000 }
   */
  poolConfig?: Omit<PoolConfig, "connectionString">;
}

/** What {@link PostgresMemoryStore.stats} reports. */
export interface PostgresStoreStats {
  items: number;
  /** Vectors (one per indexed field of an item), pending ones included. */
  vectors: number;
  /** Vectors written but not yet moved into the HNSW index (searched exactly meanwhile). */
  pendingVectors: number;
  schemaVersion: number;
  /** pgvector's version, when the store has an index. */
  pgvector?: string;
  /** The recorded embedder identity and dims, when the store has an index. */
  embedder?: string;
  dims?: number;
  /** Bytes on disk of each table with its indexes. */
  tableBytes: Record<string, number>;
}
