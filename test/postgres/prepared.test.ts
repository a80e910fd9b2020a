import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { MAX_PREPARED, PreparedStatements } from "../../src/store/postgres/prepared.js";
import { explainingPool } from "../helpers/explain-pool.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema } from "./real-server.js";

/**
 * The search statements run as named prepared statements: one name per SQL
 * shape (the values never change the text), a session that lost them
 * (DEALLOCATE ALL, a pooler's DISCARD ALL) recovers, and the option turns
 * them off.
 */
const DIMS = 16;
const N = 300;

describeWithVectors("named prepared statements", () => {
  const schema = freshSchema();
  const embeddings = new PrecomputedEmbeddings(lowRankUnitVectors(N, DIMS, 1), lowRankUnitVectors(4, DIMS, 2), DIMS);
  const index = { dims: DIMS, embeddings, fields: ["text"] };
  const admin = new pg.Pool({ connectionString: databaseUrl(), max: 1 });

  beforeAll(async () => {
    const store = new PostgresMemoryStore({ connectionString: databaseUrl(), schema, index });
    const ops = [];
    for (let i = 0; i < N; i++) ops.push({ namespace: ["users", `u${i % 3}`], key: `k${i}`, value: { text: idText("v", i), n: i } });
    await store.batch(ops);
    await store.close();
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  const captured = async (options: { preparedStatements?: boolean }, run: (s: PostgresMemoryStore) => Promise<unknown>) => {
    const { pool, plans } = explainingPool(databaseUrl(), 1);
    const store = new PostgresMemoryStore({ pool, schema, index, retrieval: "vector", ...options });
    try {
      await run(store);
      return plans;
    } finally {
      await store.close();
      await pool.end();
    }
  };

  it("one name per shape: other users, queries and pages reuse it; another filter shape gets its own", async () => {
    const plans = await captured({}, async (s) => {
      await s.search(["users", "u0"], { query: idText("q", 0), limit: 5 });
      await s.search(["users", "u1"], { query: idText("q", 1), limit: 7, offset: 2 });
      await s.search(["users", "u2"], { query: idText("q", 2), limit: 5, filter: { n: { $gte: 10 } } });
      await s.search(["users", "u2"], { query: idText("q", 3), limit: 5, filter: { n: { $gte: 20 } } });
    });
    const names = plans.map((p) => p.name);
    expect(names.every((n) => /^lhm_[0-9a-f]{24}$/.test(n ?? ""))).toBe(true);
    expect(names[0]).toBe(names[1]);
    expect(names[2]).toBe(names[3]);
    expect(names[2]).not.toBe(names[0]);
  });

  it("preparedStatements: false runs every statement unnamed, with the same results", async () => {
    let named: unknown;
    let unnamed: unknown;
    await captured({}, async (s) => (named = await s.search(["users", "u1"], { query: idText("q", 1), limit: 10 })));
    const plans = await captured({ preparedStatements: false }, async (s) => (unnamed = await s.search(["users", "u1"], { query: idText("q", 1), limit: 10 })));
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((p) => p.name === undefined)).toBe(true);
    expect(unnamed).toEqual(named);
  });

  it("a session that lost its prepared statements (DEALLOCATE ALL) prepares them again", async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    const store = new PostgresMemoryStore({ pool, schema, index, retrieval: "vector" });
    try {
      const before = await store.search(["users", "u1"], { query: idText("q", 1), limit: 10 });
      await pool.query("DEALLOCATE ALL"); // the store's one connection
      const after = await store.search(["users", "u1"], { query: idText("q", 1), limit: 10 });
      expect(after).toEqual(before);
      expect(after).toHaveLength(10);
    } finally {
      await store.close();
      await pool.end();
    }
  });
});

it("names at most MAX_PREPARED texts; later ones run unnamed", () => {
  const s = new PreparedStatements(true);
  const names = Array.from({ length: MAX_PREPARED + 5 }, (_, i) => s.nameOf(`SELECT ${i}`));
  expect(new Set(names.slice(0, MAX_PREPARED)).size).toBe(MAX_PREPARED);
  expect(names.slice(MAX_PREPARED)).toEqual(Array(5).fill(undefined));
  expect(s.nameOf("SELECT 0")).toBe(names[0]);
  expect(new PreparedStatements(false).nameOf("SELECT 1")).toBeUndefined();
});
