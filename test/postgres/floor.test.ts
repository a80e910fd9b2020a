import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import type { PostgresMemoryStoreOptions } from "../../src/store/postgres/options.js";
import { fittedEfSearch } from "../../src/store/postgres/fitted-ef.js";
import { annSql } from "../../src/store/postgres/search.js";
import { tables, vectorParam } from "../../src/store/postgres/sql.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings, row } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema } from "./real-server.js";
import { countingPool } from "../helpers/counting-pool.js";

/**
 * The search path at its floor on the real server: a read is one round trip
 * once a connection has the walk's settings; an explicit efSearch below the
 * fusion pool is what the walk uses; the pending table, drained, leaves no
 * dead rows for a search to read.
 */
const N = 2000;
const DIMS = 32;


describeWithVectors("PostgresMemoryStore at its floor (real server)", () => {
  const schema = freshSchema();
  const embeddings = new PrecomputedEmbeddings(lowRankUnitVectors(N, DIMS, 1), lowRankUnitVectors(8, DIMS, 2), DIMS);
  const { pool, sent, values } = countingPool({ connectionString: databaseUrl(), max: 2 });
  const stores: PostgresMemoryStore[] = [];
  const open = (more: Partial<PostgresMemoryStoreOptions> = {}, hnsw: PostgresMemoryStoreOptions["hnsw"] = {}) => {
    const s = new PostgresMemoryStore({ pool, schema, retrieval: "vector", sessionSettings: true, index: { dims: DIMS, embeddings, fields: ["text"] }, ...more, hnsw: { exactScanThreshold: 100, ...hnsw } });
    stores.push(s);
    return s;
  };
  let store: PostgresMemoryStore;
  /** Tables of their own whose store moves nothing: 600 vectors stay pending beside 200 indexed ones. */
  const pendingBesideIndexed = async () => {
    const own = freshSchema();
    const still = open({ schema: own }, { indexWorkers: 0, maxPendingVectors: 10_000 });
    const put = async (from: number, to: number) => {
      const ops = [];
      for (let i = from; i < to; i++) ops.push({ namespace: ["users", `u${i % 40}`], key: `k${i}`, value: { text: idText("v", i) } });
      await still.batch(ops);
    };
    await put(0, 200);
    await still.flushIndex();
    await put(200, 800);
    return { own, still };
  };

  beforeAll(async () => {
    store = open();
    for (let s = 0; s < N; s += 500) {
      const ops = [];
      for (let i = s; i < s + 500; i++) ops.push({ namespace: ["users", `u${i % 40}`], key: `k${i}`, value: { text: idText("v", i) } });
      await store.batch(ops);
    }
    await store.flushIndex();
  }, 300_000);
  afterAll(async () => {
    for (const s of stores) await s.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it("a vector search is one round trip once the connection has its settings (was BEGIN; SET LOCAL …, the statement, COMMIT), for all users and for one", async () => {
    for (const prefix of [["users"], ["users", "u1"]]) {
      for (let q = 0; q < 3; q++) await store.search(prefix, { query: idText("q", q), limit: 10 }); // both connections get their settings; one user's count
      sent.length = 0;
      for (let q = 0; q < 6; q++) expect(await store.search(prefix, { query: idText("q", q), limit: 10 })).toHaveLength(10);
      expect(sent.filter((t) => /\bSET\b|BEGIN|COMMIT/.test(t))).toEqual([]);
      expect(sent, sent.join("\n")).toHaveLength(6);
    }
  });

  it("vector-only mode fetches the page, not the fusion pool, with the same results", async () => {
    const vectorOnly = open({ retrieval: "vector" });
    for (let q = 0; q < 4; q++) {
      const deep = await vectorOnly.search(["users"], { query: idText("q", q), limit: 50 });
      const page = await vectorOnly.search(["users"], { query: idText("q", q), limit: 10 });
      const second = await vectorOnly.search(["users"], { query: idText("q", q), limit: 10, offset: 10 });
      expect(page.map((r) => [r.key, r.score])).toEqual(deep.slice(0, 10).map((r) => [r.key, r.score]));
      expect(second.map((r) => [r.key, r.score])).toEqual(deep.slice(10, 20).map((r) => [r.key, r.score]));
    }
    sent.length = 0;
    values.length = 0;
    await vectorOnly.search(["users"], { query: idText("q", 1), limit: 10 });
    const walk = sent.findIndex((t) => t.includes("<=>"));
    expect(walk).toBeGreaterThan(-1);
    // The walk's LIMITs (literals, see annSql) are the page, not the pool of 50: the pending branch's
    // bound and its rows, the count of pending vectors up to the bound + 1, the index walk, the page.
    expect([...sent[walk]!.matchAll(/LIMIT (\w+)/g)].map((m) => m[1])).toEqual(["10", "10", "11", "10", "10"]);
  });

  it("a ranked page reads a result's columns only: no index fields, no ordering columns (each column costs the driver per statement)", async () => {
    const vectorOnly = open({ retrieval: "vector" });
    for (const prefix of [["users"], ["users", "u1"]]) {
      await vectorOnly.search(prefix, { query: idText("q", 1), limit: 10 }); // the small/large count first
      sent.length = 0;
      const hits = await vectorOnly.search(prefix, { query: idText("q", 1), limit: 10 });
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => h.createdAt instanceof Date && typeof h.value.text === "string")).toBe(true);
      const ranked = sent.filter((t) => t.includes("<=>"));
      expect(ranked, sent.join("\n")).toHaveLength(1);
      expect(ranked[0]).not.toMatch(/index_fields/);
      expect(ranked[0]).not.toMatch(/^\s*SELECT \*/);
    }
  });

  it("a walk that the index alone fills runs without pgvector's iterative scan; a selective one walks again with it, and the selection's next walks start with it", async () => {
    // Every selection above 10 items is walked.
    // Connections of its own, so that each walk's settings are sent (see withWalkSettings).
    const own = countingPool({ connectionString: databaseUrl(), max: 2 });
    const s = open({ pool: own.pool, retrieval: "vector" }, { exactScanThreshold: 10 });
    const sent = own.sent;
    const walks = () => sent.filter((t) => t.includes("<=>"));
    const iterative = () => sent.flatMap((t) => [...t.matchAll(/hnsw\.iterative_scan = (\w+)/g)].map((m) => m[1]));
    sent.length = 0;
    for (let q = 0; q < 3; q++) expect(await s.search(["users"], { query: idText("q", q), limit: 10 })).toHaveLength(10);
    expect(walks()).toHaveLength(3);
    expect(iterative()).not.toContain("relaxed_order");
    expect(iterative()).toContain("off");
    // A filter that 30 of the 2,000 items pass: the first walk stops at ef_search with a few of them,
    // the second walks on iteratively and fills the page.
    const texts = Array.from({ length: 30 }, (_, i) => idText("v", 7 + 40 * i));
    const filter = { text: { $in: texts } };
    sent.length = 0;
    const first = await s.search(["users"], { query: idText("q", 1), limit: 10, filter });
    expect(first).toHaveLength(10);
    expect(first.every((h) => texts.includes(h.value.text as string))).toBe(true);
    expect(walks()).toHaveLength(2);
    expect(iterative()).toEqual(["relaxed_order"]);
    sent.length = 0;
    const again = await s.search(["users"], { query: idText("q", 1), limit: 10, filter });
    expect(again.map((h) => h.key)).toEqual(first.map((h) => h.key));
    expect(walks()).toHaveLength(1);
    expect(iterative()).not.toContain("off");
    await s.close();
    await own.pool.end();
  });

  it("an explicit efSearch below the fusion pool (50) is the walk's ef_search, in vector and hybrid mode; unset, it fits the table", async () => {
    for (const retrieval of ["vector", "hybrid"] as const) {
      const s = open({ retrieval }, { efSearch: 16 });
      sent.length = 0;
      expect(await s.search(["users"], { query: idText("q", 2), limit: 10 })).toHaveLength(10);
      const settings = sent.filter((t) => /hnsw\.ef_search/.test(t)).join("\n");
      const ef = [...settings.matchAll(/hnsw\.ef_search = (\d+)/g)].map((m) => Number(m[1]));
      // A connection that already had ef 16 needs no SET: then the session says so.
      if (ef.length) expect(ef.every((v) => v === 16)).toBe(true);
    }
    const c = await pool.connect();
    try {
      // The last SET on each connection was the store's; a connection the store set last has 16.
      const shown = (await c.query<{ hnsw_ef_search?: string; "hnsw.ef_search"?: string }>("SHOW hnsw.ef_search")).rows[0]!;
      expect(["16", "100"]).toContain(Object.values(shown)[0]);
    } finally {
      c.release();
    }
    expect(fittedEfSearch(N)).toBe(100);
    expect(fittedEfSearch(100_000)).toBe(200);
    expect(fittedEfSearch(300_000)).toBe(300);
  });

  it("after the pending table drains, a search reads none of its dead rows (vacuumed by the store: EXPLAIN BUFFERS)", async () => {
    // 1,500 more vectors through the pending table, then drained.
    for (let s = 0; s < 1500; s += 500) {
      const ops = [];
      for (let i = s; i < s + 500; i++) ops.push({ namespace: ["users", `u${i % 40}`], key: `k${i}`, value: { text: idText("v", i), again: true } });
      await store.batch(ops);
    }
    await store.flushIndex();
    const stats = await pool.query<{ dead: string; live: string }>(
      `SELECT n_dead_tup AS dead, n_live_tup AS live FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'memory_pending_vectors'`,
      [schema],
    );
    expect(Number(stats.rows[0]!.dead)).toBe(0);
    const t = tables(schema, "memory_");
    const { text, values } = annSql(t, { namespacePrefix: ["users"] }, Date.now(), vectorParam(row(lowRankUnitVectors(8, DIMS, 2), DIMS, 3)), 10);
    const plan = (await pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, values)).rows.map((r) => String(r["QUERY PLAN"]));
    // Every buffer line inside the pending branch: a page or two of its primary key, no heap page per dead row.
    const at = plan.findIndex((l) => /on memory_pending_vectors/.test(l));
    expect(at, plan.join("\n")).toBeGreaterThan(-1);
    const end = plan.findIndex((l) => /^Planning/.test(l));
    const hits = plan
      .slice(at, end === -1 ? undefined : end)
      .filter((l) => /Buffers: shared hit=/.test(l))
      .map((l) => Number(/shared hit=(\d+)/.exec(l)![1]));
    expect(Math.max(0, ...hits), plan.join("\n")).toBeLessThanOrEqual(4);
  });
  it("during a burst the workers VACUUM the pending table without ANALYZE (new statistics invalidate the walk's prepared plans); the drain analyzes", async () => {
    const own = freshSchema();
    const burst = open({ schema: own }, { indexWorkers: 2 });
    sent.length = 0;
    // 3,000 vectors through the pending table in batches of 100. A first load of new tables moves them
    // 1,000 at a time (the HNSW index is built after it), so two or three moves of 500 or more: at
    // least two VACUUMs (with 1,200, one move of 1,000 could be all there was, and its VACUUM all the
    // table needed).
    for (let s = 0; s < 3000; s += 100) {
      const ops = [];
      for (let i = s; i < s + 100; i++) ops.push({ namespace: ["users", `u${i % 40}`], key: `k${i}`, value: { text: idText("v", i % N) } });
      await burst.batch(ops);
    }
    // The workers move all 3,000 (no flushIndex): they vacuum every 500 moved rows and when they drain the table.
    const vacuumsOf = () => sent.filter((t) => /^VACUUM/.test(t) && t.includes(`"${own}"`));
    for (let i = 0; i < 600 && ((await burst.stats()).pendingVectors > 0 || vacuumsOf().length < 2); i++) await new Promise((r) => setTimeout(r, 50));
    const duringBurst = vacuumsOf();
    expect(duringBurst.length, `pending ${(await burst.stats()).pendingVectors}; index and VACUUM statements: ${sent.filter((t) => /VACUUM|INDEX/i.test(t)).map((t) => t.slice(0, 80)).join(" | ")}`).toBeGreaterThanOrEqual(2);
    expect(duringBurst.filter((t) => /ANALYZE/.test(t)), duringBurst.join("\n")).toEqual([]);
    await burst.flushIndex();
    const vacuums = vacuumsOf();
    expect(vacuums.length, vacuums.join("\n")).toBeGreaterThan(duringBurst.length);
    expect(vacuums.at(-1)).toMatch(/^VACUUM \(ANALYZE\)/);
    expect(vacuums.slice(0, -1).filter((t) => /ANALYZE/.test(t)), vacuums.join("\n")).toEqual([]);
    await burst.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
  });
  it("during a burst, the pending branch sorts the pending vectors first and probes items for the page only (EXPLAIN ANALYZE), same results", async () => {
    const { own, still } = await pendingBesideIndexed();
    expect((await still.stats()).pendingVectors).toBe(600);
    const t = tables(own, "memory_");
    const q = vectorParam(row(lowRankUnitVectors(8, DIMS, 2), DIMS, 5));
    const { text, values } = annSql(t, { namespacePrefix: ["users"] }, Date.now(), q, 10);
    const plan = (await pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, values)).rows.map((r) => String(r["QUERY PLAN"]));
    // The pending branch's item probes (after its scan in the plan) run for the page, not once per pending vector.
    const at = plan.findIndex((l) => /on memory_pending_vectors/.test(l));
    expect(at, plan.join("\n")).toBeGreaterThan(-1);
    const probes = plan.slice(at).filter((l) => /Index Scan using memory_items_pkey/.test(l)).map((l) => Number(/loops=(\d+)/.exec(l)![1]));
    expect(probes.length, plan.join("\n")).toBe(1);
    expect(probes[0], plan.join("\n")).toBeLessThanOrEqual(10);
    // The same ranking as an exact query over both tables (keys and distances, equal distances in key order).
    const exact = await pool.query<{ key: string; d: number }>(
      `SELECT key, d FROM (SELECT key, embedding <=> $1::vector AS d FROM "${own}".memory_vectors UNION ALL SELECT key, embedding <=> $1::vector AS d FROM "${own}".memory_pending_vectors) x ORDER BY d, key LIMIT 10`,
      [q],
    );
    const got = await pool.query<{ key: string; d: number }>(text, values);
    expect(got.rows.map((r) => r.key).sort()).toEqual(exact.rows.map((r) => r.key).sort());
    const found = await still.search(["users"], { query: idText("q", 5), limit: 10 });
    expect(found.map((r) => r.key).sort()).toEqual(exact.rows.map((r) => r.key).sort());
    await pool.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
  });
  it("during a burst, a search without a filter reads only the nearest pending vectors (a top-N sort); when expired items leave the page short of them, it walks again over every pending vector: the exact page either way", async () => {
    const { own, still } = await pendingBesideIndexed();
    const t = tables(own, "memory_");
    const q = vectorParam(row(lowRankUnitVectors(8, DIMS, 2), DIMS, 6));
    const { text, values } = annSql(t, { namespacePrefix: ["users"] }, Date.now(), q, 10, 10);
    const plan = (await pool.query(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, values)).rows.map((r) => String(r["QUERY PLAN"]));
    // The sort right above the scan of the pending vectors keeps the nearest 10 (the merge of both branches' 20 rows sorts too).
    const scan = plan.findIndex((l) => /Scan on memory_pending_vectors/.test(l));
    expect(scan, plan.join("\n")).toBeGreaterThan(-1);
    expect(plan.slice(0, scan).filter((l) => /Sort Method/.test(l)).at(-1), plan.join("\n")).toMatch(/top-N heapsort/);
    // The exact page over the live items of both tables (equal distances in key order).
    const exact = async () =>
      (
        await pool.query<{ key: string }>(
          `SELECT v.key FROM (SELECT ns, key, embedding <=> $1::vector AS d FROM "${own}".memory_vectors UNION ALL SELECT ns, key, embedding <=> $1::vector AS d FROM "${own}".memory_pending_vectors) v
           JOIN "${own}".memory_items i ON i.ns = v.ns AND i.key = v.key WHERE i.expires_at IS NULL ORDER BY v.d, v.key LIMIT 10`,
          [q],
        )
      ).rows.map((r) => r.key);
    const walks = () => sent.filter((x) => x.includes("<=>"));
    const before = await exact();
    sent.length = 0;
    const found = await still.search(["users"], { query: idText("q", 6), limit: 10 });
    expect(walks()).toHaveLength(1);
    expect(found.map((r) => r.key).sort()).toEqual(before.sort());
    expect(walks()[0]).toMatch(/MATERIALIZED/);
    // The 20 pending vectors nearest the query belong to items that have expired: the bounded branch
    // gives none of its 10, so the walk runs again without the bound.
    await pool.query(
      `UPDATE "${own}".memory_items i SET expires_at = 1 FROM (SELECT ns, key FROM "${own}".memory_pending_vectors ORDER BY embedding <=> $1::vector LIMIT 20) p WHERE i.ns = p.ns AND i.key = p.key`,
      [q],
    );
    const after = await exact();
    expect(after.filter((k) => before.includes(k)).length).toBeLessThan(10);
    sent.length = 0;
    const again = await still.search(["users"], { query: idText("q", 6), limit: 10 });
    expect(walks()).toHaveLength(2);
    expect(again.map((r) => r.key).sort()).toEqual(after.sort());
    expect(walks()[1]).not.toMatch(/MATERIALIZED/);
    await still.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
  });
  it("the store's puts keep a large selection's plan (no count before its next search) and forget a small one's; a delete forgets both", async () => {
    const own = freshSchema();
    const s = open({ schema: own }, { exactScanThreshold: 50 });
    const ops = [];
    for (let i = 0; i < 300; i++) ops.push({ namespace: ["users", i < 30 ? "small" : `u${i % 10}`], key: `k${i}`, value: { text: idText("v", i) } });
    await s.batch(ops);
    await s.flushIndex();
    const counts = () => sent.filter((t) => /count\(\*\)::int AS n/.test(t)).length;
    await s.search(["users"], { query: idText("q", 1), limit: 10 });
    await s.search(["users", "small"], { query: idText("q", 1), limit: 10 });
    sent.length = 0;
    await s.search(["users"], { query: idText("q", 2), limit: 10 });
    await s.search(["users", "small"], { query: idText("q", 2), limit: 10 });
    expect(counts()).toBe(0);
    // A put into the small selection: it is counted again (a put can grow a selection, and a small
    // one's count bounds its exact ranking), and the new item is found; the large one's count stays.
    await s.put(["users", "small"], "new", { text: idText("v", 299) });
    sent.length = 0;
    await s.search(["users"], { query: idText("q", 3), limit: 10 });
    expect(counts()).toBe(0);
    const found = await s.search(["users", "small"], { query: idText("v", 299), limit: 31 });
    expect(counts()).toBe(1);
    expect(found).toHaveLength(31);
    expect(found.map((r) => r.key)).toContain("new");
    // A delete forgets every count.
    await s.delete(["users", "u1"], "k31");
    sent.length = 0;
    await s.search(["users"], { query: idText("q", 4), limit: 10 });
    expect(counts()).toBe(1);
    await s.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
  });
});
