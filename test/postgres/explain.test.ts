import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { explainingPool } from "../helpers/explain-pool.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema } from "./real-server.js";

/**
 * The plans PostgreSQL really chooses for the store's searches on the real
 * server (EXPLAIN of each vector statement, in the store's own session and
 * transaction): a large selection walks the HNSW index; one user's search
 * reads that user's range of the vectors' primary key and never scans the
 * whole vector table.
 */
const N = 5000;
const USER_ITEMS = 100;
const DIMS = 32;

describeWithVectors("search plans on the real server (EXPLAIN)", () => {
  const { pool, plans } = explainingPool(databaseUrl(), 2);
  const schema = freshSchema();
  // Distinct embedding-like vectors per item (bench/lib/vectors.ts); many identical vectors make pgvector's HNSW inserts crawl.
  const embeddings = new PrecomputedEmbeddings(lowRankUnitVectors(N, DIMS, 1), lowRankUnitVectors(4, DIMS, 2), DIMS);
  const open = (retrieval: "vector" | "hybrid") => new PostgresMemoryStore({ pool, schema, retrieval, index: { dims: DIMS, embeddings, fields: ["text"] } });
  let store: PostgresMemoryStore;

  beforeAll(async () => {
    store = open("vector");
    for (let s = 0; s < N; s += 1000) {
      const ops = [];
      for (let i = s; i < s + 1000; i++) {
        const user = i < USER_ITEMS ? "u1" : `u${2 + (i % 500)}`;
        ops.push({ namespace: ["users", user], key: `k${i}`, value: { text: idText("v", i), n: i } });
      }
      await store.batch(ops);
    }
    await pool.query(`ANALYZE "${schema}".memory_items; ANALYZE "${schema}".memory_vectors`);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const planOf = async (s: PostgresMemoryStore, prefix: string[], options: { filter?: Record<string, unknown> } = {}) => {
    plans.length = 0;
    const hits = await s.search(prefix, { query: idText("q", 1), limit: 10, ...options });
    expect(hits.length).toBe(10);
    expect(plans.length).toBeGreaterThan(0);
    return plans.map((p) => p.plan).join("\n---\n");
  };

  it("all users (a large selection): the HNSW index, no sort of the selection", async () => {
    const plan = await planOf(store, ["users"]);
    expect(plan).toMatch(/Index Scan using memory_vectors_hnsw on memory_vectors/);
    expect(plan).not.toMatch(/Seq Scan on memory_vectors/);
  });

  it("all users under a filter: still the HNSW index (iterative scan fills the page)", async () => {
    const plan = await planOf(store, ["users"], { filter: { text: { $ne: "nothing" } } });
    expect(plan).toMatch(/Index Scan using memory_vectors_hnsw/);
  });

  for (const retrieval of ["vector", "hybrid"] as const) {
    it(`one user (${retrieval}): the user's range of the vectors' primary key, never a scan of every vector`, async () => {
      const s = open(retrieval);
      try {
        const plan = await planOf(s, ["users", "u1"]);
        // The vectors are read through their primary key, by the user's namespace range (a plain or a bitmap index scan).
        expect(plan).toMatch(/Index Scan on memory_vectors_pkey[^\n]*\n\s*Index Cond: \([^\n]*'users\.u1[./]?'::text|Index Scan using memory_vectors_pkey on memory_vectors v[^\n]*\n\s*Index Cond: \([^\n]*'users\.u1[./]?'::text/);
        expect(plan).not.toMatch(/Seq Scan/);
        expect(plan).not.toMatch(/memory_vectors_hnsw/);
      } finally {
        await s.close();
      }
    });
  }
});
