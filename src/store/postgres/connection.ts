import type { Pool, PoolClient } from "pg";
import { DatabaseConnectionError, DatabaseTimeoutError } from "../../errors.js";
import { loadPg } from "./load-pg.js";
import type { PostgresMemoryStoreOptions } from "./options.js";

/** Defaults of the pool the store creates (see {@link PostgresMemoryStoreOptions.poolConfig}). */
export const POOL_DEFAULTS = { max: 10, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 } as const;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECTION_RETRY_MS = 10_000;

type Logger = Pick<Console, "warn">;

/** The pool the store uses, and how to let go of it on close. */
export interface StorePool {
  pool: Pool;
  /** Ends the pool when the store created it; detaches the store's listener from a caller's pool. */
  release: () => Promise<void>;
}

/**
 * The caller's pool, or a bounded one of the store's own. Either way a
 * PostgreSQL server that ends an idle connection (restart, failover,
 * `pg_terminate_backend`) is reported through `logger` instead of crashing
 * the process: `pg` emits `'error'` on the pool then, and an `'error'` event
 * nobody listens to throws. The pool drops that client and opens a new one
 * on the next query. A caller's pool gets the listener only when it has none
 * of its own, and loses it on close.
 */
export async function openPool(options: PostgresMemoryStoreOptions, logger: Logger): Promise<StorePool> {
  const onError = (err: Error) => logger.warn(`langgraph-hnsw-memory: PostgreSQL ended an idle connection (${err.message}); a new one is opened on the next query`);
  // Every client also gets a listener of its own for its whole life: pg emits 'error' on a client
  // whose connection ends even when the failing query already got the error, and a client handed
  // from one user to the next has a moment with no listener at all. Failures reach the store
  // through its queries; this one only keeps them from being uncaught.
  const onConnect = (client: PoolClient) => void client.on("error", ignore);
  if (options.pool) {
    const pool = options.pool;
    const listen = pool.listenerCount("error") === 0;
    if (listen) pool.on("error", onError);
    pool.on("connect", onConnect);
    return {
      pool,
      release: async () => {
        if (listen) pool.off("error", onError);
        pool.off("connect", onConnect);
      },
    };
  }
  const pg = await loadPg();
  const pool = new pg.Pool({
    ...POOL_DEFAULTS,
    application_name: "langgraph-hnsw-memory",
    ...options.poolConfig,
    connectionString: options.connectionString,
  });
  pool.on("error", onError);
  pool.on("connect", onConnect);
  return { pool, release: () => pool.end() };
}

/** SQLSTATE classes and driver messages that mean the connection is gone (or could not be made). */
const CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);
const CONNECTION_MESSAGE = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|terminating connection|the database system is (starting up|shutting down|in recovery mode)|ECONNREFUSED|ECONNRESET/i;
const RETRYABLE_CODES = new Set(["40001", "40P01"]);

export type ErrorKind = "connection" | "timeout" | "conflict" | "other";

/** What a driver error means for a retry. */
export function classify(err: unknown): ErrorKind {
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code;
  const message = e?.message ?? "";
  if (code && RETRYABLE_CODES.has(code)) return "conflict";
  if (code === "57014" || /timeout exceeded when trying to connect|Query read timeout/i.test(message)) return "timeout";
  if ((code && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGE.test(message)) return "connection";
  return "other";
}

/** The named error for a connection or timeout failure (others are returned as they are). */
export function namedError(err: unknown, where: string, phase: "connect" | "run" | "commit"): unknown {
  const kind = classify(err);
  const detail = (err as Error)?.message ?? String(err);
  if (kind === "timeout") {
    return new DatabaseTimeoutError(`${where}: ${detail} (statementTimeoutMs / poolConfig.connectionTimeoutMillis); nothing was applied`, { cause: err });
  }
  if (kind !== "connection") return err;
  if (phase === "commit") {
    return new DatabaseConnectionError(`${where}: the connection to PostgreSQL was lost during COMMIT (${detail}); the batch may or may not have been applied`, true, { cause: err });
  }
  const hint = /Connection terminated unexpectedly|ECONNRESET/.test(detail) && phase === "connect"
    ? " (a PGlite socket server closes connections beyond its maxConnections, default 1: start PGLiteSocketServer with maxConnections >= poolConfig.max, or set poolConfig.max to 1)"
    : "";
  return new DatabaseConnectionError(`${where}: PostgreSQL could not be reached or the connection was lost (${detail})${hint}; nothing was applied`, false, { cause: err });
}

export interface TransactionOptions {
  /** Retries of a batch aborted by a deadlock or serialization failure. */
  maxRetries: number;
  /** How long connection failures before COMMIT are retried (reconnecting), in ms. */
  connectionRetryMs: number;
  /** `statement_timeout` of the store's sessions (0: the session's own setting is left alone). */
  statementTimeoutMs: number;
  logger: Logger;
  /** What the transaction is, in messages. */
  where: string;
  /**
   * `"read"`: no BEGIN/COMMIT (two round trips less; under READ COMMITTED
   * each statement sees its own snapshot either way). Only for work whose
   * writes are single idempotent statements (a TTL refresh).
   * @default "write"
   */
  mode?: "read" | "write";
}

/** Clients whose session already has the store's statement_timeout. */
const timed = new WeakMap<PoolClient, number>();

/**
 * Runs `fn` on a pooled client, in a transaction (`BEGIN`, `fn`, `COMMIT`)
 * unless `mode` is `"read"`. The session gets `statement_timeout` once per
 * connection. Deadlocks and serialization failures are retried
 * (`maxRetries`); a lost or refused connection before `COMMIT` is retried
 * on a new connection for up to `connectionRetryMs` (the server rolled the
 * transaction back, so a retry applies it once). Anything else, and a
 * connection lost during `COMMIT`, throws a named error. A client whose
 * connection broke is destroyed, not returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, options: TransactionOptions, fn: (db: PoolClient) => Promise<T>): Promise<T> {
  const started = performance.now();
  const write = options.mode !== "read";
  let conflicts = 0;
  for (let attempt = 0; ; attempt++) {
    let client: PoolClient | undefined;
    let phase: "connect" | "run" | "commit" = "connect";
    let broken: Error | undefined;
    const onClientError = (err: Error) => (broken = err);
    try {
      client = await pool.connect();
      // A checked-out client has no listener of the pool's: without this one, a connection
      // ended between two statements would emit an unhandled 'error'.
      client.on("error", onClientError);
      phase = "run";
      const timeout = Math.round(options.statementTimeoutMs);
      const needsTimeout = timeout > 0 && timed.get(client) !== timeout;
      // A read on a connection that has its timeout sends nothing before its statement.
      if (needsTimeout || write) await client.query(needsTimeout ? `SET statement_timeout = ${timeout}${write ? "; BEGIN" : ""}` : "BEGIN");
      if (needsTimeout) timed.set(client, timeout);
      const out = await fn(client);
      if (write) {
        phase = "commit";
        await client.query("COMMIT");
      }
      return out;
    } catch (err) {
      const kind = classify(broken ?? err);
      if (kind === "connection") broken ??= err as Error;
      if (client && write && phase !== "connect" && kind !== "connection") await client.query("ROLLBACK").catch(() => undefined);
      if (kind === "conflict" && conflicts++ < options.maxRetries) {
        await sleep(5 * 2 ** Math.min(conflicts, 8) * Math.random());
        continue;
      }
      if (kind === "connection" && phase !== "commit" && performance.now() - started < options.connectionRetryMs) {
        if (attempt === 0) options.logger.warn(`langgraph-hnsw-memory: ${options.where}: lost the PostgreSQL connection (${(err as Error).message}); retrying on a new one`);
        await sleep(Math.min(1000, 50 * 2 ** Math.min(attempt, 5)));
        continue;
      }
      throw namedError(broken && kind === "connection" ? broken : err, options.where, phase);
    } finally {
      if (client) {
        // A broken client keeps the listener (it may still emit while the pool destroys it).
        if (!broken) client.off("error", onClientError);
        client.release(broken ?? false);
      }
    }
  }
}

const ignore = () => {};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
