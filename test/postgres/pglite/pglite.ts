import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";

/**
 * A real PostgreSQL engine (PGlite, with the real pgvector) served on a local
 * TCP socket, so the store talks to it through the `pg` driver exactly as it
 * would to a server. PGlite is one session: all stores of a test file share
 * one pool with a single connection. Cold start takes seconds, so start one
 * per test FILE.
 */
export interface PgliteServer {
  url: string;
  pool: pg.Pool;
  /** A fresh schema name (one per store, so each store starts empty). */
  freshSchema: () => string;
  stop: () => Promise<void>;
  /** Resolves once the server has let go of every closed connection (it accepts one at a time). */
  idle: () => Promise<void>;
}

let counter = 0;

export async function startPglite(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  return {
    url,
    pool,
    idle: async () => {
      while (server.getStats().activeConnections > 0) await new Promise((r) => setTimeout(r, 20));
    },
    freshSchema: () => `t${process.pid}_${++counter}`,
    stop: async () => {
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}

/**
 * One PGlite server for the calling test file: started before its tests
 * (cold start takes seconds, minutes on a loaded machine) and stopped after.
 * Read `.server` inside tests and hooks.
 */
export function pgliteForFile(): { readonly server: PgliteServer } {
  const holder = {} as { server: PgliteServer };
  beforeAll(async () => {
    holder.server = await startPglite();
  }, 300_000);
  afterAll(async () => {
    await holder.server?.stop();
  });
  return holder;
}

/**
 * The stores a test file opens on `pg`: each test pushes the store and its
 * schema, and after each test every one is closed and its schema dropped.
 */
export function closeStoresAfterEach(pg: { readonly server: PgliteServer }): { store: { close(): Promise<void> }; schema: string }[] {
  const open: { store: { close(): Promise<void> }; schema: string }[] = [];
  afterEach(async () => {
    for (const { store, schema } of open.splice(0)) {
      await store.close();
      await pg.server.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
  return open;
}
