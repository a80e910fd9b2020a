import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { explainingPool, type CapturedPlan } from "../helpers/explain-pool.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema } from "./real-server.js";

/**
 * The plans PostgreSQL really chooses for the store's searches on the real
 * server (EXPLAIN of each vector statement, in the store's own session and
 * transaction): a large selection walks the HNSW index; one user's search
 * reads that user's range of the vectors' primary key (once, not a probe per
 * item) and never scans the whole vector table.
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
    await store.flushIndex(); // every vector in the HNSW-indexed table (deferred indexing)
    await pool.query(`ANALYZE "${schema}".memory_items; ANALYZE "${schema}".memory_vectors; ANALYZE "${schema}".memory_pending_vectors`);
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

  // As raw pgvector reads one user's vectors: the user's range of the vectors' primary key, never a
  // primary-key probe of the vectors per item (100 probes, 300 buffers where the range reads 37).
  // (The range's bounds are InitPlan values, see `opaque` in sql.ts: the plan shows them as $n.)
  const userRange = /Index Scan (using|on) memory_vectors_pkey[^\n]*\n\s*Index Cond: \(\(ns >= \$\d+\) AND \(ns < \$\d+\)\)/;
  const perItemProbe = /Index Cond: \(\(ns = i\.ns\) AND \(key = i\.key\)\)/;
  for (const retrieval of ["vector", "hybrid"] as const) {
    it(`one user (${retrieval}): the user's range of the vectors' primary key, read once, no probe of the vectors per item, never a scan of every vector`, async () => {
      const s = open(retrieval);
      try {
        const plan = await planOf(s, ["users", "u1"]);
        expect(plans).toHaveLength(1); // one statement: the ranking and the page's rows
        expect(plan).toMatch(userRange);
        expect(plan).not.toMatch(perItemProbe);
        expect(plan).not.toMatch(/Seq Scan on memory_(items|vectors) /);
        expect(plan).not.toMatch(/memory_vectors_hnsw/);
        if (retrieval === "hybrid") {
          // Every item of the user (BM25 needs them all): the user's range of the items' primary key.
          expect(plan).toMatch(/Index Scan (using|on) memory_items_pkey[^\n]*\n\s*Index Cond: \(\(ns >= \$\d+\) AND \(ns < \$\d+\)\)/);
        }
      } finally {
        await s.close();
      }
    });
  }

  it("one user (vector): the items are read for the page only, in distance order (EXPLAIN ANALYZE: 10 probes for 100 items)", async () => {
    await planOf(store, ["users", "u1"]);
    const one = plans[0];
    const client = await pool.connect();
    try {
      const r = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${one.sql}`, one.values);
      const plan = r.rows.map((row) => String(row["QUERY PLAN"])).join("\n");
      const probes = plan.split("\n").filter((l) => /Index Scan using memory_items_pkey/.test(l));
      expect(probes, plan).toHaveLength(1);
      expect(probes[0], plan).toMatch(/loops=10\)/);
      expect(plan).toMatch(/Limit \(actual time=[^\n]* rows=10 loops=1\)/);
    } finally {
      client.release();
    }
  });

  it("one user's exact ranking keeps its generic plan: planned once per connection, not again on every call (vector and hybrid)", async () => {
    for (const retrieval of ["vector", "hybrid"] as const) {
      const own = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
      const s = new PostgresMemoryStore({ pool: own, schema, retrieval, index: { dims: DIMS, embeddings, fields: ["text"] } });
      try {
        for (let q = 0; q < 12; q++) expect(await s.search(["users", "u1"], { query: idText("q", q % 4), limit: 10 })).toHaveLength(10);
        const r = await own.query<{ generic_plans: string; custom_plans: string }>("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%<=>%'");
        expect(r.rows, retrieval).toHaveLength(1);
        // PostgreSQL makes five custom plans first, then compares their cost with the generic one's.
        expect(Number(r.rows[0]!.custom_plans), retrieval).toBeLessThanOrEqual(5);
        expect(Number(r.rows[0]!.generic_plans), retrieval).toBeGreaterThanOrEqual(7);
      } finally {
        await s.close();
        await own.end();
      }
    }
  });

  it("all users (hybrid): the keyword ranking, the row fetch and the score fetch keep their generic plans too", async () => {
    const own = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    // The same items, and query vectors up to "q:bf" (18).
    const wordy = new PrecomputedEmbeddings(lowRankUnitVectors(N, DIMS, 1), lowRankUnitVectors(19, DIMS, 2), DIMS);
    const s = new PostgresMemoryStore({ pool: own, schema, retrieval: "hybrid", index: { dims: DIMS, embeddings: wordy, fields: ["text"] } });
    try {
      // "q:bc" is query vector 15 and the word "bc", which one item has ("v:bc", k15): a keyword hit
      // outside the vector pool, whose row and score are then fetched by id (a list of one id, the
      // case whose custom plans cost less than the generic plan's guess of 10 ids).
      for (let q = 0; q < 12; q++) expect(await s.search(["users"], { query: `q:${["bc", "bd", "bf"][q % 3]}`, limit: 10 })).toHaveLength(10);
      const r = await own.query<{ statement: string; generic_plans: string; custom_plans: string }>("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements");
      const of = (pattern: RegExp) => {
        const rows = r.rows.filter((row) => pattern.test(row.statement));
        expect(rows, String(pattern)).toHaveLength(1);
        return rows[0]!;
      };
      const statements = { keywords: /ts_rank/, rows: /^SELECT i\.\* FROM unnest/, scores: /LEAST\(x\.d, y\.d\)/ };
      const counts = Object.fromEntries(Object.entries(statements).map(([what, pattern]) => [what, { custom: Number(of(pattern).custom_plans), generic: Number(of(pattern).generic_plans) }]));
      for (const [what, c] of Object.entries(counts)) {
        expect(c.custom + c.generic, what).toBe(12); // run on every search
        // PostgreSQL makes five custom plans first, then keeps the generic one.
        expect(c.custom, `${what}: ${JSON.stringify(counts)}`).toBeLessThanOrEqual(5);
      }
    } finally {
      await s.close();
      await own.end();
    }
  });

  // The store runs these statements as named prepared statements, and after five runs PostgreSQL may
  // switch a session to the statement's generic plan (planned without the values): check those plans too.
  const genericPlan = async (captured: CapturedPlan, settings: string[]) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      for (const setting of ["SET LOCAL plan_cache_mode = force_generic_plan", ...settings]) await client.query(setting);
      await client.query(`PREPARE generic_probe AS ${captured.sql}`);
      const args = (captured.values ?? []).map((v) => (Buffer.isBuffer(v) ? `'${vectorText(v)}'` : typeof v === "number" ? String(v) : client.escapeLiteral(String(v))));
      const r = await client.query(`EXPLAIN EXECUTE generic_probe(${args.join(", ")})`);
      return r.rows.map((row) => String(row["QUERY PLAN"])).join("\n");
    } finally {
      await client.query("ROLLBACK");
      await client.query("DEALLOCATE generic_probe").catch(() => undefined);
      client.release();
    }
  };

  it("prepared: the statements are named, and their generic plans keep the same shape", async () => {
    await planOf(store, ["users"]);
    const all = plans[0];
    await planOf(store, ["users", "u1"]);
    const one = plans[0];
    expect(all.name).toMatch(/^lhm_[0-9a-f]{24}$/);
    expect(one.name).toMatch(/^lhm_[0-9a-f]{24}$/);
    const walk = await genericPlan(all, ["SET LOCAL enable_sort = off", "SET LOCAL hnsw.iterative_scan = relaxed_order"]);
    expect(walk).toMatch(/Index Scan using memory_vectors_hnsw on memory_vectors/);
    const exact = await genericPlan(one, []);
    expect(exact).toMatch(/Index Scan (using|on) memory_vectors_pkey[^\n]*\n\s*Index Cond: \(\(ns >= \$\d+\)/);
    expect(exact).not.toMatch(perItemProbe);
    expect(exact).not.toMatch(/Seq Scan on memory_(items|vectors) |memory_vectors_hnsw/);
  });

  it("one user (hybrid): every vector of the user is read once, never again for each item (custom and generic plans)", async () => {
    const s = open("hybrid");
    try {
      await planOf(s, ["users", "u1"]);
    } finally {
      await s.close();
    }
    const one = plans[0];
    const client = await pool.connect();
    try {
      const args = (one.values ?? []).map((v) => (Buffer.isBuffer(v) ? `'${vectorText(v)}'` : typeof v === "number" ? String(v) : client.escapeLiteral(String(v))));
      for (const mode of ["force_custom_plan", "force_generic_plan"]) {
        await client.query("BEGIN");
        await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
        await client.query(`PREPARE hybrid_probe AS ${one.sql}`);
        const r = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE hybrid_probe(${args.join(", ")})`);
        await client.query("ROLLBACK");
        await client.query("DEALLOCATE hybrid_probe");
        const plan = r.rows.map((row) => String(row["QUERY PLAN"])).join("\n");
        // Every item of the user, each with its best distance.
        expect(plan, plan).toMatch(/Hash Left Join[^\n]* rows=100 loops=1/);
        const reads = plan.split("\n").filter((l) => / on memory_(pending_)?vectors |Materialize|Memoize/.test(l));
        expect(reads.length, plan).toBeGreaterThan(0);
        for (const line of reads) expect(line, plan).toMatch(/loops=1\)/);
      }
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
    }
  });

  it("one user with vectors still pending: the scope's pending rows are read once, never once per item (custom and generic plans)", async () => {
    await planOf(store, ["users", "u1"]);
    const one = plans[0];
    // A plain session (not the explaining pool), in a transaction rolled back after: 50 more items of
    // u1 whose vectors are pending, invisible to the store's workers.
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      await client.query("BEGIN");
      const t = (name: string) => `"${schema}".memory_${name}`;
      await client.query(`INSERT INTO ${t("items")} (ns, key, value, created_at, updated_at, tsv)
        SELECT 'users.u1', 'p' || g, jsonb_build_object('text', 'x'), 0, 0, to_tsvector('simple', 'x') FROM generate_series(1, 50) g`);
      await client.query(`INSERT INTO ${t("pending_vectors")} (ns, key, field, embedding)
        SELECT 'users.u1', 'p' || g, 'text', (SELECT embedding FROM ${t("vectors")} WHERE key = 'k' || g) FROM generate_series(1, 50) g`);
      const args = (one.values ?? []).map((v) => (Buffer.isBuffer(v) ? `'${vectorText(v)}'` : typeof v === "number" ? String(v) : client.escapeLiteral(String(v))));
      for (const mode of ["force_custom_plan", "force_generic_plan"]) {
        await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
        await client.query(`PREPARE pending_probe AS ${one.sql}`);
        const r = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE pending_probe(${args.join(", ")})`);
        await client.query("DEALLOCATE pending_probe");
        const plan = r.rows.map((row) => String(row["QUERY PLAN"])).join("\n");
        const scans = plan.split("\n").filter((l) => / on memory_pending_vectors/.test(l));
        expect(scans.length, plan).toBeGreaterThan(0);
        for (const line of scans) expect(line, plan).toMatch(/loops=1\)/);
        // The pending items are ranked too (they rank by the copied vectors of k1..k50).
        expect(plan).toMatch(/rows=10 loops=1/);
      }
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
      await client.end();
    }
  });
});

/** pgvector's text form of a vector sent in its binary form (int16 dims, int16 unused, big-endian float4s). */
function vectorText(b: Buffer): string {
  const n = b.readInt16BE(0);
  return `[${Array.from({ length: n }, (_, i) => b.readFloatBE(4 + 4 * i)).join(",")}]`;
}
