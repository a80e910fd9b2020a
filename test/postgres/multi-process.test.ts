import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { describeWithVectors } from "./real-server.js";
import { countingPool } from "../helpers/counting-pool.js";

/**
 * Several processes share one real PostgreSQL server (started by
 * global-setup.ts, or DATABASE_URL): first without a vector index, then
 * with pgvector, writers and readers at once (vector-child.ts).
 */
const root = path.resolve(import.meta.dirname, "../..");
const url = inject("databaseUrl");
const WRITERS = [1, 2, 10, 11];
const BATCHES = 30;
const schema = `mp_${process.pid}`;
let admin: pg.Pool;

function runChild(script: string, args: string[]): Promise<{ out: string; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/postgres", script), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let stderr = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr, out })));
}

function runWriter(id: number): Promise<{ acks: number[]; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/postgres/writer-child.ts"), url, schema, String(id), String(BATCHES)], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let stderr = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on("exit", (code) => resolve({ code, stderr, acks: [...out.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1])) })),
  );
}

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: url, max: 2 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});
afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

describe("PostgresMemoryStore shared by several processes", () => {
  it("loses and duplicates no acknowledged write; batches stay atomic; setup runs once", async () => {
    const runs = await Promise.all(WRITERS.map(runWriter));
    for (const [i, r] of runs.entries()) {
      expect(r.stderr, `writer ${WRITERS[i]}`).toBe("");
      expect(r.code).toBe(0);
      expect(r.acks.sort((a, b) => a - b)).toEqual(Array.from({ length: BATCHES }, (_, b) => b));
    }
    const store = new PostgresMemoryStore({ connectionString: url, schema });
    try {
      // Migrations applied once although four processes set up at the same moment.
      expect((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".memory_migrations`)).rows[0].n).toBe(2);
      for (const id of WRITERS) {
        // Each batch left 4 items (it deleted its item 4 after putting it).
        expect(await store.count(["users", `p${id}`])).toBe(BATCHES * 4);
        const items = await store.search(["users", `p${id}`], { limit: 1000 });
        expect(items.every((it) => it.namespace[1] === `p${id}` && it.value.writer === id)).toBe(true);
        const keys = new Set(items.map((it) => it.key));
        expect(keys.size).toBe(items.length);
        for (let b = 0; b < BATCHES; b++) {
          for (let i = 0; i < 5; i++) expect(keys.has(`own/${b}-${i}`), `p${id} own/${b}-${i}`).toBe(i !== 4);
        }
      }
      // Whole-label prefixes: p1 does not see p10 or p11.
      expect(await store.listNamespaces({ prefix: ["users", "p1"] })).toEqual([["users", "p1"]]);
      // The shared keys all hold the tag of one batch: the last to commit wrote all ten.
      const shared = await store.search(["shared"], { limit: 100 });
      expect(shared).toHaveLength(10);
      expect(new Set(shared.map((s) => s.value.tag)).size).toBe(1);
      const total = (await admin.query(`SELECT count(*)::int AS n, count(DISTINCT (ns, key))::int AS d FROM "${schema}".memory_items`)).rows[0];
      expect(total.n).toBe(total.d);
      expect(total.n).toBe(WRITERS.length * BATCHES * 4 + 10);
    } finally {
      await store.close();
    }
  }, 300_000);

  it("deleteNamespace, count and keyword search agree across processes", async () => {
    const a = new PostgresMemoryStore({ connectionString: url, schema: `${schema}_b` });
    const b = new PostgresMemoryStore({ connectionString: url, schema: `${schema}_b` });
    try {
      await a.put(["users", "u1"], "x", { text: "Biscuit the beagle" });
      await a.put(["users", "u10"], "x", { text: "Biscuit the cat" });
      expect((await b.search(["users", "u1"], { query: "biscuit" })).map((r) => r.value.text)).toEqual(["Biscuit the beagle"]);
      expect(await b.deleteNamespace(["users", "u1"])).toBe(1);
      expect(await a.get(["users", "u1"], "x")).toBeNull();
      expect(await a.count(["users"])).toBe(1);
    } finally {
      await a.close();
      await b.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}_b" CASCADE`);
    }
  });

  it("batches that rewrite the same keys in opposite orders queue instead of deadlocking: a run of puts is upserted by namespace, then key; a batch of several runs locks its items in that order first", async () => {
    const { pool, sent, values } = countingPool({ connectionString: url, max: 8 });
    const stores = [0, 1].map(() => new PostgresMemoryStore({ pool, schema: `${schema}_o` }));
    try {
      const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
      await stores[0]!.batch([...keys].reverse().map((key) => ({ namespace: ["shared"], key, value: { n: 0 } })));
      const upserts = sent.flatMap((text, i) => (/^\s*INSERT INTO \S+memory_items/.test(text) ? [i] : []));
      expect(values[upserts.at(-1)!]![1]).toEqual(keys);
      sent.length = 0;
      values.length = 0;
      // 40 batches in flight, half writing k9…k0 and half k0…k9: without one order they deadlock
      // and are rolled back and retried; in one order each waits for the one before it.
      await Promise.all(
        Array.from({ length: 40 }, (_, b) => stores[b % 2]!.batch((b % 2 ? [...keys].reverse() : keys).map((key) => ({ namespace: ["shared"], key, value: { n: b } })))),
      );
      expect(sent.filter((text) => /ROLLBACK/.test(text))).toEqual([]);
      const after = await stores[0]!.search(["shared"], { limit: 20 });
      expect(new Set(after.map((r) => r.value.n)).size).toBe(1);
      // Batches whose puts a read splits in two runs (as LangGraph's batching mixes a node's reads and
      // writes) lock all their items first, in the same order: they queue too.
      sent.length = 0;
      values.length = 0;
      await Promise.all(
        Array.from({ length: 40 }, (_, b) => {
          const order = b % 2 ? [...keys].reverse() : keys;
          const put = (key: string) => ({ namespace: ["shared"], key, value: { n: 100 + b } });
          return stores[b % 2]!.batch([...order.slice(0, 5).map(put), { namespace: ["shared"], key: order[0]! }, ...order.slice(5).map(put)]);
        }),
      );
      expect(sent.filter((text) => /FOR UPDATE/.test(text))).toHaveLength(40);
      expect(sent.filter((text) => /ROLLBACK/.test(text))).toEqual([]);
      const mixed = await stores[0]!.search(["shared"], { limit: 20 });
      expect(new Set(mixed.map((r) => r.value.n)).size).toBe(1);
    } finally {
      for (const s of stores) await s.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}_o" CASCADE`);
      await pool.end();
    }
  });

  it("a batch the server aborts in a deadlock is rolled back and retried, and applies once", async () => {
    const { pool, sent } = countingPool({ connectionString: url, max: 2, application_name: "lhm-deadlock-test" });
    const own = `${schema}_d`;
    const store = new PostgresMemoryStore({ pool, schema: own });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await store.batch([
        { namespace: ["race"], key: "a", value: { by: "setup" } },
        { namespace: ["race"], key: "b", value: { by: "setup" } },
      ]);
      // Another session holds b, then asks for a while the store's batch holds a and waits for b. That session
      // checks for deadlocks only after 10 s, so the store's session finds the cycle and is the one aborted.
      await other.query("BEGIN");
      await other.query("SET LOCAL deadlock_timeout = '10s'");
      await other.query(`SELECT 1 FROM "${own}".memory_items WHERE ns = 'race' AND key = 'b' FOR UPDATE`);
      sent.length = 0;
      const batch = store.batch([
        { namespace: ["race"], key: "a", value: { by: "store" } },
        { namespace: ["race"], key: "b", value: { by: "store" } },
      ]);
      const waiting = async () =>
        (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'lhm-deadlock-test' AND wait_event_type = 'Lock'`)).rows[0].n > 0;
      for (let i = 0; i < 200 && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 10));
      expect(await waiting()).toBe(true);
      await other.query(`UPDATE "${own}".memory_items SET value = '{"by":"other"}' WHERE ns = 'race' AND key = 'a'`);
      await other.query("COMMIT");
      await batch;
      expect(sent.filter((t) => t === "ROLLBACK")).toHaveLength(1);
      const items = await store.search(["race"], { limit: 10 });
      expect(items.map((it) => [it.key, it.value.by]).sort()).toEqual([
        ["a", "store"],
        ["b", "store"],
      ]);
    } finally {
      await other.end();
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
      await pool.end();
    }
  });
});

describeWithVectors("PostgresMemoryStore with vectors, several processes writing and searching at once", () => {
  it("loses, duplicates and half-applies nothing; searches never see a vector of another value", async () => {
    const vschema = `${schema}_v`;
    const writers = [1, 2, 3];
    const batches = 25;
    try {
      const runs = await Promise.all([
        ...writers.map((id) => runChild("vector-child.ts", [url, vschema, "writer", String(id), String(batches)])),
        runChild("vector-child.ts", [url, vschema, "reader", "1", "6000"]),
        runChild("vector-child.ts", [url, vschema, "reader", "2", "6000"]),
      ]);
      for (const r of runs) {
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        expect(r.out.match(/^bad .*$/gm) ?? []).toEqual([]);
      }
      for (const [i, id] of writers.entries()) {
        const acks = [...runs[i].out.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
        expect(acks, `writer ${id}`).toEqual(Array.from({ length: batches }, (_, b) => b));
      }
      const searches = runs.slice(writers.length).map((r) => Number(/^searches (\d+)$/m.exec(r.out)?.[1] ?? 0));
      expect(Math.min(...searches)).toBeGreaterThan(5);
      const t = `"${vschema}"`;
      // Vectors indexed or still pending (each process stopped its index workers when it closed).
      const counts = async () =>
        (
          await admin.query(`WITH v AS (SELECT ns, key FROM ${t}.memory_vectors UNION ALL SELECT ns, key FROM ${t}.memory_pending_vectors)
            SELECT (SELECT count(*) FROM ${t}.memory_items)::int AS items, (SELECT count(DISTINCT (ns, key)) FROM ${t}.memory_items)::int AS distinct_items,
            (SELECT count(*) FROM v)::int AS vectors,
            (SELECT count(*) FROM ${t}.memory_items i WHERE NOT EXISTS (SELECT 1 FROM v WHERE v.ns = i.ns AND v.key = i.key))::int AS without_vector`)
        ).rows[0];
      const all = writers.length * batches * 8;
      expect(await counts()).toEqual({ items: all, distinct_items: all, vectors: all, without_vector: 0 });
      // Every vector is its own item's text (none stale, none of a neighbour): searching a text finds that item first.
      const store = new PostgresMemoryStore({ connectionString: url, schema: vschema, index: { dims: 64, embeddings: new (await import("../helpers/fake-embeddings.js")).FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
      try {
        // Whatever was left pending moves into the index, once.
        await store.flushIndex();
        expect(Number((await admin.query(`SELECT count(*) AS n FROM ${t}.memory_pending_vectors`)).rows[0].n)).toBe(0);
        expect(Number((await admin.query(`SELECT count(*) AS n FROM ${t}.memory_vectors`)).rows[0].n)).toBe(all);
        expect(await counts()).toEqual({ items: all, distinct_items: all, vectors: all, without_vector: 0 });
        for (const key of ["0-0", "12-5", "24-7"]) {
          const item = await store.get(["users", "w2"], key);
          const [top] = await store.search(["users", "w2"], { query: String(item!.value.text), limit: 1 });
          expect(top.key).toBe(key);
          expect(top.score).toBeCloseTo(1, 4);
        }
      } finally {
        await store.close();
      }
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${vschema}" CASCADE`);
    }
  }, 300_000);
});
