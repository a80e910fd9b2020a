import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/errors.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import type { PostgresMemoryStoreOptions } from "../../src/store/postgres/options.js";
import { moveChunk } from "../../src/store/postgres/index-settler.js";
import { tables } from "../../src/store/postgres/sql.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { lowRankUnitVectors, PrecomputedEmbeddings } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema, schemasForFile } from "./real-server.js";

/**
 * Deferred indexing on the real server (hnsw.deferredIndexing, the
 * default): a put's vectors go to the pending table and background workers
 * move them into the HNSW-indexed table. Searches must see every
 * acknowledged write whether its vector has moved or not; a vector is never
 * lost, doubled or left stale by a move racing a put or a delete; rows
 * left behind by a stopped process are moved by the next one.
 */
const DIMS = 32;

describeWithVectors("PostgresMemoryStore: deferred indexing", () => {
  const { admin, schemas, stores } = schemasForFile();
  const open = (schema: string, hnsw: PostgresMemoryStoreOptions["hnsw"] = {}, more: Partial<PostgresMemoryStoreOptions> = {}): PostgresMemoryStore => {
    if (!schemas.includes(schema)) schemas.push(schema);
    const store = new PostgresMemoryStore({
      connectionString: databaseUrl(),
      schema,
      index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }), fields: ["text"] },
      hnsw,
      ...more,
    });
    stores.push(store);
    return store;
  };
  const count = async (schema: string, table: string, where = "TRUE") =>
    Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${table} WHERE ${where}`)).rows[0].n);
  const words = ["apple", "banana", "cherry", "grape", "lemon", "mango", "olive", "peach", "plum", "kiwi"];
  const docs = (n: number, user = (i: number) => `u${i % 7}`) =>
    Array.from({ length: n }, (_, i) => ({ namespace: ["users", user(i)], key: `k${i}`, value: { text: `${words[i % 10]} ${words[(i * 3) % 10]} note ${i}` } }));

  it("searches find vectors still pending, and rank them as a fully indexed store does", async () => {
    // Distinct embedding-like vectors (no ties, so both plans must give one order). No workers:
    // nothing moves until flushIndex, so every search below first runs against pending rows only.
    const D = 64;
    const embeddings = new PrecomputedEmbeddings(lowRankUnitVectors(300, D, 3), lowRankUnitVectors(4, D, 4), D);
    const index = { dims: D, embeddings, fields: ["text"] };
    const schema = freshSchema();
    const store = open(schema, { indexWorkers: 0, exactScanThreshold: 20 }, { index });
    const ref = open(freshSchema(), { deferredIndexing: false, exactScanThreshold: 20 }, { index });
    const items = Array.from({ length: 300 }, (_, i) => ({ namespace: ["users", `u${i % 7}`], key: `k${i}`, value: { text: `v:${i}` } }));
    for (const s of [store, ref]) await s.batch(items);
    expect(await count(schema, "memory_pending_vectors")).toBe(300);
    expect(await count(schema, "memory_vectors")).toBe(0);
    expect((await store.stats()).pendingVectors).toBe(300);
    // All users (the index walk merged with the pending rows), one user (exact), vector and hybrid.
    const run = (s: PostgresMemoryStore) =>
      Promise.all(
        [["users"], ["users", "u3"], []].flatMap((prefix, i) =>
          (["vector", "hybrid"] as const).map(async (retrieval) =>
            (await s.search(prefix, { query: `q:${i}`, limit: 15, retrieval } as never)).map((r) => `${r.namespace.join("/")}/${r.key} ${r.score?.toFixed(5)}`),
          ),
        ),
      );
    const expected = await run(ref);
    expect(expected.every((r) => r.length === 15)).toBe(true);
    expect(await run(store)).toEqual(expected);
    await store.flushIndex();
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
    expect(await count(schema, "memory_vectors")).toBe(300);
    expect(await run(store)).toEqual(expected);
  });

  it("the background workers move new vectors into the index by themselves", async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.batch(docs(250));
    for (let i = 0; i < 200 && (await count(schema, "memory_pending_vectors")) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
    expect(await count(schema, "memory_vectors")).toBe(250);
  });

  it("stats() counts each vector once while workers move them (one snapshot for both tables)", async () => {
    // Two counts in two statements counted a vector moved between them twice (a flaky contract failure).
    const schema = freshSchema();
    const store = open(schema, { indexWorkers: 2 });
    await store.batch(docs(1500));
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const { vectors, pendingVectors } = await store.stats();
      seen.add(vectors);
      if (pendingVectors === 0) break;
    }
    expect([...seen]).toEqual([1500]);
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
  });

  it("puts and deletes racing the moves (two stores, two workers each) leave each live item exactly its current vector, also mid-way", async () => {
    const schema = freshSchema();
    const a = open(schema, { indexWorkers: 2 });
    const b = open(schema, { indexWorkers: 2 });
    const embeddings = new FakeEmbeddings({ dims: DIMS });
    const writer = async (store: PostgresMemoryStore, w: number) => {
      for (let round = 0; round < 25; round++) {
        const ops = Array.from({ length: 20 }, (_, i) => {
          const key = `k${(i * 7 + round * 3 + w) % 40}`;
          const del = (round + i + w) % 9 === 0;
          return { namespace: ["users", "shared"], key, value: del ? null : { text: `${words[(round + i + w) % 10]} ${w}-${round}-${i}` } };
        });
        // Distinct keys per batch, so that its order is the store's order.
        const seen = new Set<string>();
        const batch = ops.filter((o) => !seen.has(o.key) && seen.add(o.key));
        await store.batch(batch);
      }
    };
    // Both writers hit the same 40 keys (which write lands last is up to the server).
    await Promise.all([writer(a, 0), writer(b, 1)]);
    // Checked twice: as the moves left it (workers stopped mid-way, rows in both tables),
    // then after every row is moved.
    const check = async () => {
      const rows = (await admin.query<{ key: string; text: string; vectors: string[] }>(
        `SELECT i.key, i.value->>'text' AS text, ARRAY(SELECT v.embedding::text FROM "${schema}".memory_vectors v WHERE v.ns = i.ns AND v.key = i.key
           UNION ALL SELECT p.embedding::text FROM "${schema}".memory_pending_vectors p WHERE p.ns = i.ns AND p.key = i.key) AS vectors
         FROM "${schema}".memory_items i`,
      )).rows;
      // One vector per live item, none for deleted ones, and no vector without its item.
      expect(rows.filter((r) => r.vectors.length !== 1).map((r) => r.key)).toEqual([]);
      expect((await count(schema, "memory_vectors")) + (await count(schema, "memory_pending_vectors"))).toBe(rows.length);
      // Each item's vector is the embedding of its current text (not of an older put).
      const stale: string[] = [];
      for (const r of rows) {
        const want = await embeddings.embedQuery(r.text);
        const got = JSON.parse(r.vectors[0]) as number[];
        if (got.some((x, i) => Math.abs(x - want[i]) > 1e-5)) stale.push(r.key);
      }
      expect(stale).toEqual([]);
    };
    await a.close();
    await b.close();
    await check();
    const c = open(schema, { indexWorkers: 0 });
    await c.flushIndex();
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
    await check();
  }, 60_000);

  it("a put of an item whose vector is being moved waits for the move, then replaces the moved vector (no stale copy)", async () => {
    const schema = freshSchema();
    const store = open(schema, { indexWorkers: 0 });
    await store.put(["users", "u1"], "x", { text: "apple" });
    const t = tables(schema, "memory_");
    const mover = await admin.connect();
    try {
      // A move in flight: the pending row of x claimed, deleted and inserted into the indexed table, not committed.
      await mover.query("BEGIN");
      expect(await moveChunk(mover, t, 100)).toBe(1);
      const put = store.put(["users", "u1"], "x", { text: "banana" });
      await new Promise((r) => setTimeout(r, 300));
      await mover.query("COMMIT");
      await put;
    } finally {
      mover.release();
    }
    const rows = (await admin.query<{ t: string; e: string }>(
      `SELECT 'indexed' AS t, embedding::text AS e FROM "${schema}".memory_vectors UNION ALL SELECT 'pending', embedding::text FROM "${schema}".memory_pending_vectors`,
    )).rows;
    const banana = await new FakeEmbeddings({ dims: DIMS }).embedQuery("banana");
    expect(rows).toHaveLength(1);
    expect((JSON.parse(rows[0].e) as number[]).every((x, i) => Math.abs(x - banana[i]) < 1e-5)).toBe(true);
    expect((await store.search(["users"], { query: "apple", limit: 5, retrieval: "vector" } as never)).map((r) => r.value)).toEqual([{ text: "banana" }]);
  });

  it("a move skips the rows of an item a delete holds, instead of waiting on it (no deadlock with the cascade)", async () => {
    const schema = freshSchema();
    const store = open(schema, { indexWorkers: 0 });
    await store.batch([
      { namespace: ["users", "u1"], key: "x", value: { text: "apple" } },
      { namespace: ["users", "u1"], key: "y", value: { text: "banana" } },
    ]);
    const t = tables(schema, "memory_");
    const deleter = await admin.connect();
    const mover = await admin.connect();
    try {
      await deleter.query("BEGIN");
      await deleter.query(`DELETE FROM ${t.items} WHERE key = 'x'`);
      await mover.query("BEGIN; SET LOCAL lock_timeout = 2000");
      // Only y moves: x's item is locked by the delete (and its pending row with it).
      expect(await moveChunk(mover, t, 100)).toBe(1);
      await mover.query("COMMIT");
      await deleter.query("COMMIT");
    } finally {
      deleter.release();
      mover.release();
    }
    expect(await count(schema, "memory_vectors")).toBe(1);
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
  });

  it("a delete of an item with pending vectors removes them, and a reopened store moves rows a stopped one left", async () => {
    const schema = freshSchema();
    const first = open(schema, { indexWorkers: 0 });
    await first.batch(docs(120));
    expect(await first.deleteNamespace(["users", "u1"])).toBeGreaterThan(0);
    expect(await count(schema, "memory_pending_vectors", "ns = 'users.u1'")).toBe(0);
    await first.delete(["users", "u2"], "k2");
    expect(await count(schema, "memory_pending_vectors", "key = 'k2'")).toBe(0);
    const left = await count(schema, "memory_pending_vectors");
    expect(left).toBe(await first.count());
    await first.close();
    // A new process (store) with workers: it moves what the first left, on open.
    const second = open(schema);
    await second.setup();
    for (let i = 0; i < 200 && (await count(schema, "memory_pending_vectors")) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
    expect(await count(schema, "memory_vectors")).toBe(left);
  });

  /** 400 items written 40 at a time by a store without workers: the most vectors seen pending after a write. */
  const mostPending = async (hnsw: PostgresMemoryStoreOptions["hnsw"]) => {
    const schema = freshSchema();
    const store = open(schema, { indexWorkers: 0, ...hnsw });
    let most = 0;
    for (let s = 0; s < 400; s += 40) {
      await store.batch(docs(400).slice(s, s + 40));
      most = Math.max(most, await count(schema, "memory_pending_vectors"));
    }
    expect((await store.stats()).vectors).toBe(400);
    return most;
  };

  it("writes past maxPendingVectors wait and move rows first, so the pending table stays bounded without any worker", async () => {
    // At most maxPendingVectors before a write, plus that write's own 40.
    expect(await mostPending({ maxPendingVectors: 50 })).toBeLessThanOrEqual(90);
  });

  it("without maxPendingVectors the bound follows the beam searches walk with (2.5 per unit of ef_search)", async () => {
    // efSearch 20: a bound of 50 pending vectors, as maxPendingVectors 50 above.
    const most = await mostPending({ efSearch: 20 });
    expect(most).toBeGreaterThan(40);
    expect(most).toBeLessThanOrEqual(90);
  });

  it("tables of schema version 1 (before the pending table) are brought to version 2 on open, their vectors kept", async () => {
    const schema = freshSchema();
    const old = open(schema, { deferredIndexing: false });
    await old.batch(docs(20));
    await old.close();
    // As version 1 left them: no pending table, one migration recorded.
    await admin.query(`DROP TABLE "${schema}".memory_pending_vectors; DELETE FROM "${schema}".memory_migrations WHERE version = 2`);
    const store = open(schema);
    expect((await store.stats()).schemaVersion).toBe(2);
    expect(await count(schema, "memory_migrations")).toBe(2);
    expect(await count(schema, "memory_vectors")).toBe(20);
    await store.put(["users", "u0"], "new", { text: "apple pie" });
    expect((await store.search(["users"], { query: "apple pie", limit: 1 }))[0].key).toBe("new");
  });

  it("deferredIndexing false writes straight into the indexed table", async () => {
    const schema = freshSchema();
    const store = open(schema, { deferredIndexing: false });
    await store.batch(docs(30));
    expect(await count(schema, "memory_pending_vectors")).toBe(0);
    expect(await count(schema, "memory_vectors")).toBe(30);
  });

  it("refuses bad deferred-indexing options with a named error", () => {
    const bad: unknown[] = [
      { indexWorkers: -1 },
      { indexWorkers: 1.5 },
      { indexWorkers: Number.NaN },
      { indexWorkers: "2" },
      { indexWorkers: null },
      { indexWorkers: 65 },
      { maxPendingVectors: 0 },
      { maxPendingVectors: Number.POSITIVE_INFINITY },
      { deferredIndexing: "yes" },
      { deferredIndexing: null },
    ];
    for (const hnsw of bad) {
      expect(() => new PostgresMemoryStore({ connectionString: databaseUrl(), hnsw: hnsw as never }), JSON.stringify(hnsw)).toThrow(InvalidOptionError);
    }
  });
});
