import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { explainingPool } from "../helpers/explain-pool.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings, row } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema } from "./real-server.js";

/**
 * One user's vector-only search is ranked exactly. The store first reads
 * only the scope's nearest `limit` vectors, one row each (a bounded sort, as
 * raw pgvector's `ORDER BY … LIMIT` does); when an item comes twice or the
 * page comes back short it marks the selection for a while and ranks the
 * items among the nearest 3 × `limit` vectors (at once while marked); when
 * that read comes back short of the page (items with many vectors, rows a
 * filter refuses, a count gone stale) it ranks the page again over every
 * vector of the scope. Whichever statement answers, the page must be the
 * exact one: every item's best cosine over its vectors, nearest first, ties
 * by key.
 */
const DIMS = 16;
const DOCS = 400;
const QUERIES = 6;

describeWithVectors("one user's exact vector ranking (real server)", () => {
  const { pool, plans } = explainingPool(databaseUrl(), 2);
  const schema = freshSchema();
  const docs = lowRankUnitVectors(DOCS, DIMS, 11);
  const queries = lowRankUnitVectors(QUERIES, DIMS, 12);
  const embeddings = new PrecomputedEmbeddings(docs, queries, DIMS);
  const fields = ["a", "b", "c", "d"];
  const open = (p: pg.Pool = pool) => new PostgresMemoryStore({ pool: p, schema, retrieval: "vector", index: { dims: DIMS, embeddings, fields } });
  let store: PostgresMemoryStore;
  /** namespace → key → the doc ids of its vectors, and its value. */
  const written = new Map<string, Map<string, { docs: number[]; value: Record<string, unknown> }>>();

  const put = async (ns: string[], key: string, docIds: number[], extra: Record<string, unknown> = {}) => {
    const value: Record<string, unknown> = { ...extra };
    docIds.forEach((d, i) => (value[fields[i]!] = idText("v", d)));
    await store.put(ns, key, value);
    const byKey = written.get(ns.join(".")) ?? new Map();
    byKey.set(key, { docs: docIds, value });
    written.set(ns.join("."), byKey);
  };
  const cosine = (q: number, d: number) => {
    const a = row(queries, DIMS, q);
    const b = row(docs, DIMS, d);
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < DIMS; i++) (dot += a[i]! * b[i]!), (na += a[i]! * a[i]!), (nb += b[i]! * b[i]!);
    return dot / Math.sqrt(na * nb);
  };
  /** The exact page: each item's best cosine over its vectors, nearest first, ties by key. */
  const expected = (ns: string, q: number, limit: number, keep: (value: Record<string, unknown>) => boolean = () => true) =>
    [...(written.get(ns) ?? new Map()).entries()]
      .filter(([, item]) => keep(item.value))
      .map(([key, item]) => ({ key, score: Math.max(...item.docs.map((d: number) => cosine(q, d))) }))
      .sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
      .slice(0, limit);
  const check = async (ns: string[], q: number, limit: number, options: { filter?: Record<string, unknown>; keep?: (value: Record<string, unknown>) => boolean } = {}) => {
    plans.length = 0;
    const hits = await store.search(ns, { query: idText("q", q), limit, filter: options.filter });
    const want = expected(ns.join("."), q, limit, options.keep);
    expect(hits.map((h) => h.key)).toEqual(want.map((w) => w.key));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 5));
    return plans.length; // vector statements run
  };

  beforeAll(async () => {
    store = open();
    let d = 0;
    // u1: 100 items of one vector each. u2: 40 items of four equal vectors each (four fields of one
    // text: more than the first read allows per item). u5: 40 items of four different vectors each.
    // u3: 3 items. u4: 60 items, a tenth of them tagged.
    for (let i = 0; i < 100; i++) await put(["users", "u1"], `a${String(i).padStart(3, "0")}`, [d++]);
    for (let i = 0; i < 40; i++, d++) await put(["users", "u2"], `b${String(i).padStart(3, "0")}`, [d, d, d, d]);
    for (let i = 0; i < 40; i++) await put(["users", "u5"], `f${String(i).padStart(3, "0")}`, [d++, d++, d++, d++]);
    for (let i = 0; i < 3; i++) await put(["users", "u3"], `c${i}`, [d++]);
    for (let i = 0; i < 60; i++) await put(["users", "u4"], `e${String(i).padStart(3, "0")}`, [d++], { tag: i % 10 === 0 ? "x" : "y" });
    await store.flushIndex();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it("items of one vector: the exact page from one bounded read of the nearest vectors", async () => {
    for (let q = 0; q < QUERIES; q++) {
      for (const limit of [1, 10, 25]) expect(await check(["users", "u1"], q, limit)).toBe(1);
    }
    const client = await pool.connect();
    try {
      plans.length = 0;
      await store.search(["users", "u1"], { query: idText("q", 0), limit: 10 });
      const r = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${plans[0]!.sql}`, plans[0]!.values);
      const plan = r.rows.map((x) => String(x["QUERY PLAN"])).join("\n");
      // Not every vector's best per item (a grouping of all 100), nor a best per item of the
      // nearest few (a second and third sort): the 10 nearest, by a bounded sort, as raw pgvector reads them.
      expect(plan).toMatch(/Sort Method: top-N heapsort/);
      expect(plan).not.toMatch(/GroupAggregate|HashAggregate|Unique/);
      expect(plan.match(/Sort Method/g)).toHaveLength(1);
      expect(plan).toMatch(/Limit \(actual time=[^\n]* rows=10 loops=1\)/);
    } finally {
      client.release();
    }
  });

  it("items of four vectors each: exact, and when the first read comes back short the page is ranked over every vector", async () => {
    // Four equal vectors an item: the nearest 10 name 3 items, so the first search reads again over
    // the nearest 30 (7 or 8 items, still short of 10) and then every vector; the selection is marked,
    // so the searches after it start with the second statement.
    expect(await check(["users", "u2"], 0, 10)).toBe(3);
    for (let q = 1; q < QUERIES; q++) expect(await check(["users", "u2"], q, 10)).toBe(2);
    // Four different vectors an item: the nearest 30 usually name 10 items; exact either way.
    for (let q = 0; q < QUERIES; q++) for (const limit of [3, 10]) await check(["users", "u5"], q, limit);
  });

  it("a scope with fewer items than the page: every item, from the first read", async () => {
    for (let q = 0; q < QUERIES; q++) expect(await check(["users", "u3"], q, 10)).toBe(1);
  });

  it("a filter: the page holds only items that pass it, exact whichever read answers", async () => {
    for (let q = 0; q < QUERIES; q++) {
      await check(["users", "u4"], q, 5, { filter: { tag: "x" }, keep: (v) => v.tag === "x" });
      await check(["users", "u4"], q, 10, { filter: { tag: "y" }, keep: (v) => v.tag === "y" });
    }
  });

  it("a count gone stale (another process deleted items): the page is still exact", async () => {
    // This store counts u1's items (100) and keeps the count a few seconds; a second store (another
    // process, as far as this one knows) deletes 95 of them, which does not clear the first one's count.
    expect(await check(["users", "u1"], 0, 10)).toBe(1);
    const other = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    const second = open(other);
    try {
      const keys = [...written.get("users.u1")!.keys()].slice(5);
      await second.batch(keys.map((key) => ({ namespace: ["users", "u1"], key, value: null })));
      for (const key of keys) written.get("users.u1")!.delete(key);
      // Five left: the first read finds 5 of the 10 the stale count promised, and so does the second,
      // so the third statement runs; the selection is marked, so the searches after it skip the first.
      expect(await check(["users", "u1"], 0, 10)).toBe(3);
      for (let q = 1; q < QUERIES; q++) expect(await check(["users", "u1"], q, 10)).toBe(2);
    } finally {
      await second.close();
      await other.end();
    }
  });
});
