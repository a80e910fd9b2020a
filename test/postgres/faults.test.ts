import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseConnectionError, DatabaseTimeoutError, IncompatibleStoreError, MemoryError } from "../../src/errors.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { pgBinDir, startPgCluster, type PgCluster } from "../helpers/pg-cluster.js";
import { describeWithVectors } from "./real-server.js";

/**
 * Failover-like faults on a real PostgreSQL server with pgvector of this
 * file's own (it is restarted; the suite's shared server is not): idle
 * connections ended by the server, connections terminated mid-run, a
 * restart mid-run, a statement over its timeout, an unreachable server, a
 * role that may not create pgvector. Each failure must be a named error,
 * the process must not crash, and no acknowledged write may be lost.
 */
const DIMS = 16;
let cluster: PgCluster;
let admin: pg.Pool;

describeWithVectors("PostgresMemoryStore under connection faults (own server)", () => {
  beforeAll(async () => {
    cluster = await startPgCluster({ bin: pgBinDir()! });
    admin = new pg.Pool({ connectionString: cluster.url, max: 2 });
    admin.on("error", () => {}); // the admin pool's own connections are ended by the restart too
    await admin.query("CREATE EXTENSION vector");
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    cluster?.stop();
  });

  const warnings: string[] = [];
  const logger = { warn: (m: string) => void warnings.push(m) };
  const open = (schema: string, options: Partial<ConstructorParameters<typeof PostgresMemoryStore>[0]> = {}) =>
    new PostgresMemoryStore({ connectionString: cluster.url, schema, logger, index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }), fields: ["text"] }, ...options });
  const terminateStoreBackends = () =>
    admin.query("SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'langgraph-hnsw-memory' AND pid <> pg_backend_pid()");

  it("an idle connection ended by the server is reported through the logger, not a crash; the next call reconnects", async () => {
    const store = open("idle", { poolConfig: { max: 3 } });
    try {
      await Promise.all([store.put(["u"], "a", { text: "one" }), store.put(["u"], "b", { text: "two" }), store.search(["u"], { query: "one" })]);
      warnings.length = 0;
      const killed = (await terminateStoreBackends()).rows[0].n;
      expect(killed).toBeGreaterThan(0);
      // Without a pool 'error' listener this was an uncaught 'error' event: the process (here the test worker) died.
      for (let i = 0; i < 100 && warnings.length < killed; i++) await new Promise((r) => setTimeout(r, 20));
      expect(warnings.some((w) => /ended an idle connection/.test(w))).toBe(true);
      expect((await store.get(["u"], "a"))?.value).toEqual({ text: "one" });
      expect((await store.search(["u"], { query: "two" }))[0].key).toBe("b");
    } finally {
      await store.close();
    }
  });

  /** Writers put unique keys as fast as they can while `fault` runs; returns what was acknowledged and every error. */
  async function writeThrough(store: PostgresMemoryStore, fault: () => Promise<void>) {
    const acked: string[] = [];
    const failed: { keys: string[]; error: unknown }[] = [];
    let stop = false;
    let n = 0;
    const writer = async (w: number) => {
      while (!stop) {
        const keys = [0, 1, 2].map((i) => `w${w}-${n}-${i}`);
        n++;
        try {
          await store.batch(keys.map((key) => ({ namespace: ["users", `w${w}`], key, value: { text: `value of ${key}` } })));
          acked.push(...keys);
        } catch (error) {
          failed.push({ keys, error });
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await new Promise((r) => setTimeout(r, 300));
    await fault();
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(writers);
    return { acked, failed };
  }

  async function expectAllThere(store: PostgresMemoryStore, keys: string[]) {
    const found = new Set<string>();
    for (let w = 0; w < 4; w++) for (const it of await store.search(["users", `w${w}`], { limit: 100_000 })) found.add(it.key);
    expect(keys.filter((k) => !found.has(k))).toEqual([]);
    // The background moves into the HNSW index ran through the same faults: every item ends with
    // exactly its one vector in the index, none lost, doubled or left pending.
    await store.flushIndex();
    const stats = await store.stats();
    expect(stats.pendingVectors).toBe(0);
    expect(stats.vectors).toBe(stats.items);
    return found;
  }

  it("connections terminated mid-run: batches are retried on new connections or fail with a named error; no acknowledged write is lost", async () => {
    const store = open("terminate", { poolConfig: { max: 4 } });
    try {
      await store.setup();
      const { acked, failed } = await writeThrough(store, async () => {
        for (let i = 0; i < 5; i++) {
          await terminateStoreBackends();
          await new Promise((r) => setTimeout(r, 60));
        }
      });
      expect(acked.length).toBeGreaterThan(0);
      for (const f of failed) expect(f.error, String(f.error)).toBeInstanceOf(DatabaseConnectionError);
      const found = await expectAllThere(store, acked);
      // A batch refused with mayHaveApplied false left nothing behind.
      for (const f of failed) if (!(f.error as DatabaseConnectionError).mayHaveApplied) expect(f.keys.filter((k) => found.has(k))).toEqual([]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("the server restarted mid-run (pg_ctl restart): the store reconnects by itself; no acknowledged write is lost", async () => {
    const store = open("restart", { poolConfig: { max: 4 } });
    try {
      await store.setup();
      const { acked, failed } = await writeThrough(store, async () => cluster.restart());
      for (const f of failed) expect(f.error, String(f.error)).toBeInstanceOf(DatabaseConnectionError);
      const found = await expectAllThere(store, acked);
      for (const f of failed) if (!(f.error as DatabaseConnectionError).mayHaveApplied) expect(f.keys.filter((k) => found.has(k))).toEqual([]);
      // Still the same store object: it searches the vectors after the restart.
      expect((await store.search(["users", "w0"], { query: `value of ${acked.find((k) => k.startsWith("w0-"))}`, limit: 1 }))).toHaveLength(1);
      expect(warnings.some((w) => /lost the PostgreSQL connection|ended an idle connection/.test(w))).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("a statement over statementTimeoutMs fails with DatabaseTimeoutError and applies nothing", async () => {
    const store = open("timeout", { statementTimeoutMs: 200 });
    const locker = await admin.connect();
    try {
      await store.put(["u"], "before", { text: "x" });
      await locker.query(`BEGIN; LOCK TABLE "timeout".memory_items IN ACCESS EXCLUSIVE MODE`);
      const err = await store.put(["u"], "during", { text: "y" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseTimeoutError);
      expect(String((err as Error).message)).toMatch(/statement timeout/);
      await locker.query("ROLLBACK");
      expect(await store.get(["u"], "during")).toBeNull();
      expect(await store.get(["u"], "before")).not.toBeNull();
    } finally {
      await locker.query("ROLLBACK").catch(() => undefined);
      locker.release();
      await store.close();
    }
  });

  it("an unreachable server is a DatabaseConnectionError after connectionRetryMs, not a raw error", async () => {
    const url = new URL(cluster.url);
    url.port = "1"; // nothing listens there
    const store = new PostgresMemoryStore({ connectionString: url.toString(), connectionRetryMs: 300, logger });
    const started = performance.now();
    const err = await store.get(["u"], "k").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseConnectionError);
    expect((err as DatabaseConnectionError).mayHaveApplied).toBe(false);
    expect(performance.now() - started).toBeLessThan(10_000);
    await store.close();
  });

  it("close() ends the pool the store created, never the caller's", async () => {
    const own = open("close_own");
    await own.put(["u"], "k", { text: "x" });
    await own.close();
    // (A backend leaves pg_stat_activity a moment after its client hung up.)
    let left = -1;
    for (let i = 0; i < 100 && left !== 0; i++) {
      left = (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'langgraph-hnsw-memory'")).rows[0].n;
      if (left) await new Promise((r) => setTimeout(r, 50));
    }
    expect(left).toBe(0);
    await expect(own.get(["u"], "k")).rejects.toBeInstanceOf(MemoryError);

    const callers = new pg.Pool({ connectionString: cluster.url, max: 2 });
    const shared = new PostgresMemoryStore({ pool: callers, schema: "close_own", index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }), fields: ["text"] } });
    expect((await shared.get(["u"], "k"))?.value).toEqual({ text: "x" });
    expect(callers.listenerCount("error")).toBe(1); // the store's, while open (the pool had none)
    await shared.close();
    expect(callers.listenerCount("error")).toBe(0);
    expect((await callers.query("SELECT 1 AS one")).rows[0].one).toBe(1);
    await callers.end();
  });

  it("a role that may not create pgvector gets IncompatibleStoreError saying what to run", async () => {
    await admin.query("DROP DATABASE IF EXISTS novector");
    await admin.query("CREATE DATABASE novector");
    await admin.query("DROP ROLE IF EXISTS app; CREATE ROLE app LOGIN");
    await admin.query("ALTER DATABASE novector OWNER TO app");
    const url = new URL(cluster.url);
    url.username = "app";
    url.pathname = "/novector";
    const store = open("x", { connectionString: url.toString() });
    const err = await store.setup().catch((e: unknown) => e);
    await store.close();
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    expect(String((err as Error).message)).toMatch(/CREATE EXTENSION vector/);
  });
});

describe("PostgresMemoryStore options", () => {
  it("refuses a negative or non-numeric statementTimeoutMs / connectionRetryMs", () => {
    for (const bad of [-1, Number.NaN, "5" as unknown as number, null as unknown as number]) {
      expect(() => new PostgresMemoryStore({ connectionString: "postgres://x", statementTimeoutMs: bad })).toThrow(/statementTimeoutMs/);
      expect(() => new PostgresMemoryStore({ connectionString: "postgres://x", connectionRetryMs: bad })).toThrow(/connectionRetryMs/);
    }
  });
});
