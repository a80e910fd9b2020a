import { describe, expect, it } from "vitest";
import { EmbeddingError, HNSWStore, IncompatibleStoreError, InvalidArgumentError, InvalidValueError } from "../../../src/index.js";
import { PostgresMemoryStore, type PostgresMemoryStoreOptions } from "../../../src/store/postgres/index.js";
import { annSql } from "../../../src/store/postgres/search.js";
import { tables, vectorParam } from "../../../src/store/postgres/sql.js";
import { FakeEmbeddings } from "../../helpers/fake-embeddings.js";
import { closeStoresAfterEach, pgliteForFile } from "./pglite.js";
import { describeRefreshTtl } from "../../conformance/refresh-ttl-contract.js";

/**
 * PostgresMemoryStore beyond the shared contract, on PGlite + pgvector over
 * the pg driver (one engine for the whole file). FakeEmbeddings is a TEST
 * DOUBLE (bag of words): meaning is not under test.
 */
const DIMS = 32;
const pg = pgliteForFile();
const open = closeStoresAfterEach(pg);

function make(options: Partial<PostgresMemoryStoreOptions> & { withIndex?: boolean } = {}) {
  const embeddings = new FakeEmbeddings({ dims: DIMS });
  const schema = options.schema ?? pg.server.freshSchema();
  const { withIndex = true, ...rest } = options;
  const store = new PostgresMemoryStore({
    pool: pg.server.pool,
    schema,
    index: withIndex ? { dims: DIMS, embeddings, fields: ["text"] } : undefined,
    ...rest,
  });
  open.push({ store, schema });
  return { store, embeddings, schema };
}

const WORDS = "apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split(" ");
const textFor = (i: number) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${WORDS[(i * 13 + 5) % WORDS.length]} note ${i}`;

async function fill(store: PostgresMemoryStore, users: string[], perUser: number) {
  for (const u of users) {
    const ops = [];
    for (let i = 0; i < perUser; i++) ops.push({ namespace: ["users", u, "memories"], key: `m${i}`, value: { text: textFor(i), n: i, user: u } });
    await store.batch(ops);
  }
}

describe("PostgresMemoryStore on PGlite", () => {
  it("never leaks across whole labels (u1 vs u10), exact and through the HNSW index", async () => {
    for (const threshold of [2000, 1]) {
      const { store } = make({ hnsw: { exactScanThreshold: threshold } });
      await fill(store, ["u1", "u10", "u11"], 20);
      const res = await store.search(["users", "u1"], { query: "apple banana", limit: 50 });
      expect(res).toHaveLength(20);
      expect(res.every((r) => r.namespace[1] === "u1")).toBe(true);
      expect(await store.count(["users", "u1"])).toBe(20);
      expect((await store.search(["users", "u1"], { limit: 100 })).length).toBe(20);
      expect(await store.listNamespaces({ prefix: ["users", "u1"] })).toEqual([["users", "u1", "memories"]]);
      expect(await store.deleteNamespace(["users", "u1"])).toBe(20);
      expect(await store.count()).toBe(40);
      await store.close();
    }
  });

  it("searches through the pgvector HNSW index (EXPLAIN), and fills limit under a selective filter", async () => {
    const { store, schema } = make({ hnsw: { exactScanThreshold: 10 } });
    await fill(store, ["a", "b", "c", "d"], 150);
    const plan = await pg.server.pool.query(
      `EXPLAIN SELECT v.ns, v.key FROM "${schema}".memory_vectors v JOIN "${schema}".memory_items i ON i.ns = v.ns AND i.key = v.key
       WHERE (i.expires_at IS NULL OR i.expires_at > 0) ORDER BY v.embedding <=> $1::vector LIMIT 10`,
      [`[${new FakeEmbeddings({ dims: DIMS }).embedText("apple").join(",")}]`],
    );
    expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/memory_vectors_hnsw/);
    // The store's own index-walk statement (annSql), over most of the store and under a filter, with the
    // settings annVectors makes: the HNSW index in distance order, each item read by a primary-key
    // probe, never a join against the whole selection (what unanalyzed tables got before).
    const client = await pg.server.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_sort = off; SET LOCAL hnsw.iterative_scan = relaxed_order");
      const q = vectorParam(new FakeEmbeddings({ dims: DIMS }).embedText("apple"));
      for (const req of [{ namespacePrefix: ["users"] }, { namespacePrefix: [], filter: { user: "c" } }]) {
        const { text, values } = annSql(tables(schema, "memory_"), req, Date.now(), q, 30);
        const plan = (await client.query(`EXPLAIN ${text}`, values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
        // Two branches, each numbered in its own order, then the first k by distance (ties in walk
        // order): the index walk, and a sort of the vectors still pending.
        expect(plan).toMatch(/^Limit[^\n]*\n\s*->\s+Sort[^\n]*\n[\s\S]*?->\s+Append/);
        const [, wide, pendingBranch] = plan.split(/\n(?=\s*->\s+WindowAgg)/);
        expect(wide).toMatch(/Nested Loop[\s\S]*Index Scan using memory_vectors_hnsw[\s\S]*Index Scan using memory_items_pkey/);
        expect(wide.split("\n").slice(3).join("\n")).not.toMatch(/Hash|Merge|Materialize|Seq Scan|Sort|pending/);
        expect(pendingBranch).toMatch(/memory_pending_vectors/);
        expect(pendingBranch).not.toMatch(/memory_vectors_hnsw| on memory_vectors /);
      }
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
    // One item in 600 passes the filter: the iterative scan still finds it.
    const res = await store.search([], { query: "apple", filter: { user: "c", n: { $in: [7, 8] } }, limit: 5 });
    expect(res.map((r) => r.key).sort()).toEqual(["m7", "m8"]);
    const many = await store.search([], { query: "apple banana", filter: { n: { $lt: 30 } }, limit: 40 });
    expect(many).toHaveLength(40);
    expect(many.every((r) => (r.value.n as number) < 30 && typeof r.score === "number")).toBe(true);
  });

  it("a stale plan decision (another process shrank the selection) still returns every item", async () => {
    const { store, schema } = make({ hnsw: { exactScanThreshold: 10 } });
    await fill(store, ["a", "b"], 60);
    const before = await store.search(["users", "a"], { query: "apple", limit: 5 });
    expect(before).toHaveLength(5); // 60 items > 10: the index walk, and "large" is remembered
    // Another store on the same tables (another process): deletes all but 3 of user a's items.
    const other = new PostgresMemoryStore({ pool: pg.server.pool, schema, index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }), fields: ["text"] } });
    await other.batch(Array.from({ length: 57 }, (_, i) => ({ namespace: ["users", "a", "memories"], key: `m${i + 3}`, value: null })));
    await other.close();
    const after = await store.search(["users", "a"], { query: "apple", limit: 5 });
    expect(after.map((r) => r.key).sort()).toEqual(["m0", "m1", "m2"]);
    expect(after.every((r) => typeof r.score === "number")).toBe(true);
  });

  it("ranks a small selection exactly as HNSWStore does, in every retrieval mode", async () => {
    for (const retrieval of ["vector", "keyword", "hybrid"] as const) {
      const { store, embeddings } = make({ retrieval });
      // Bag-of-words vectors tie often; a tiny per-text perturbation makes the order unique.
      embeddings.mangle = (v, text) => v.map((x, i) => x + 1e-3 * Math.sin(i * 7.1 + text.length * 3.3 + text.charCodeAt(text.length - 1)));
      const hnsw = new HNSWStore({ index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval, embeddingCache: false });
      for (const s of [store, hnsw]) {
        for (let i = 0; i < 30; i++) await s.put(["users", "x"], `k${i}`, { text: textFor(i) });
      }
      for (const query of ["apple banana", "golf note 7", "Hotel India"]) {
        const [a, b] = await Promise.all([store.search(["users", "x"], { query, limit: 8 }), hnsw.search(["users", "x"], { query, limit: 8 })]);
        expect(a.map((r) => r.key)).toEqual(b.map((r) => r.key));
        a.forEach((r, i) => (r.score === undefined ? expect(b[i].score).toBeUndefined() : expect(r.score).toBeCloseTo(b[i].score!, 5)));
      }
      await hnsw.close();
    }
  });

  it("ranks a large selection by full-text search in keyword mode", async () => {
    const { store } = make({ withIndex: false, hnsw: { exactScanThreshold: 5 } });
    await fill(store, ["a", "b"], 40);
    await store.put(["users", "b", "memories"], "rare", { text: "zanzibar holiday" });
    const res = await store.search(["users"], { query: "trip to Zanzibar", limit: 3 });
    expect(res[0].key).toBe("rare");
    expect(res[0].score).toBeGreaterThan(0);
    expect(res).toHaveLength(3); // filled with unscored items
  });

  it("expires items, refreshes TTL on read and sweeps", async () => {
    let now = 1_000_000;
    const { store } = make({ ttl: { defaultTtl: 1, sweepIntervalMinutes: 0 }, clock: () => now });
    await store.put(["t"], "a", { text: "alpha" });
    await store.put(["t"], "b", { text: "beta" });
    await store.put(["t"], "forever", { text: "gamma" }, undefined, { ttl: null });
    now += 50_000;
    expect(await store.get(["t"], "a")).not.toBeNull(); // refreshes a
    now += 20_000; // b expired, a still live
    expect(await store.get(["t"], "b")).toBeNull();
    expect((await store.search(["t"])).map((r) => r.key).sort()).toEqual(["a", "forever"]);
    expect(await store.count(["t"])).toBe(2);
    expect(await store.sweepExpired()).toBe(1);
    now += 10 * 60_000;
    expect(await store.sweepExpired()).toBe(1);
    expect((await store.stats()).items).toBe(1);
  });

  it("rejects bad input with named errors and writes nothing", async () => {
    const { store, embeddings } = make();
    await expect(store.put(["a"], "k", { when: new Date() })).rejects.toThrow(InvalidValueError);
    await expect(store.put(["a"], "k", { v: 1 }, undefined, { ttl: -1 })).rejects.toThrow(InvalidArgumentError);
    await expect(store.search(["a"], { limit: -1 })).rejects.toThrow(InvalidArgumentError);
    embeddings.failWhen = (t) => t.includes("boom");
    await expect(
      store.batch([
        { namespace: ["a"], key: "ok", value: { text: "fine" } },
        { namespace: ["a"], key: "bad", value: { text: "boom" } },
      ]),
    ).rejects.toThrow(EmbeddingError);
    expect(await store.count()).toBe(0);
    expect(() => new PostgresMemoryStore({ pool: pg.server.pool, schema: "Bad-Name" })).toThrow(InvalidArgumentError);
  });

  it("records the schema version and the embedder, and refuses another embedder or dims", async () => {
    const { store, schema } = make();
    await store.put(["a"], "k", { text: "hello" });
    const stats = await store.stats();
    expect(stats).toMatchObject({ items: 1, vectors: 1, schemaVersion: 2, dims: DIMS, embedder: `FakeEmbeddings:fake-bag-of-words-${DIMS}` });
    expect(stats.pgvector).toMatch(/^0\.\d+/);
    const other = new PostgresMemoryStore({ pool: pg.server.pool, schema, index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS, model: "other" }) } });
    await expect(other.setup()).rejects.toThrow(IncompatibleStoreError);
    const noIndex = new PostgresMemoryStore({ pool: pg.server.pool, schema });
    await expect(noIndex.get(["a"], "k")).rejects.toThrow(/open them with the same `index` config/);
    await pg.server.pool.query(`INSERT INTO "${schema}".memory_migrations VALUES (99, 'future', 0)`);
    const future = new PostgresMemoryStore({ pool: pg.server.pool, schema, index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }) } });
    await expect(future.setup()).rejects.toThrow(/schema version 99/);
    // setup() is idempotent: a second store on the same tables applies nothing twice.
    await pg.server.pool.query(`DELETE FROM "${schema}".memory_migrations WHERE version = 99`);
    const again = new PostgresMemoryStore({ pool: pg.server.pool, schema, index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }) } });
    expect((await again.get(["a"], "k"))?.value).toEqual({ text: "hello" });
    expect((await pg.server.pool.query(`SELECT count(*)::int AS n FROM "${schema}".memory_migrations`)).rows[0].n).toBe(2);
  });

  it("keeps later writes of one key in a batch, in order", async () => {
    const { store } = make();
    const out = await store.batch([
      { namespace: ["o"], key: "k", value: { text: "one" } },
      { namespace: ["o"], key: "k", value: { text: "two" } },
      { namespace: ["o"], key: "j", value: { text: "three" } },
      { namespace: ["o"], key: "k", value: null },
      { namespace: ["o"], key: "k", value: { text: "four" } },
      { namespace: ["o"], key: "k" },
    ]);
    expect((out[5] as { value: unknown }).value).toEqual({ text: "four" });
    expect((await store.stats()).vectors).toBe(2);
  });
});

describeRefreshTtl("PostgresMemoryStore (PGlite)", async ({ refreshOnRead, clock }) => {
  const { store } = make({ ttl: { defaultTtl: 10, refreshOnRead, sweepIntervalMinutes: 0 }, clock });
  return { store, cleanup: async () => {} }; // closed and dropped by afterEach
});
