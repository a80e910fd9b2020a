/**
 * Benchmark: PostgresMemoryStore at scale. Recall@10 and latency of the
 * store against raw pgvector on the store's own tables, at each size of
 * --sizes, for each `hnsw.efSearch` of --ef and for the store's default
 * (ef_search fitted to the table, src/store/postgres/fitted-ef.ts).
 *
 * One store's tables grow from size to size (10k, then 15k more up to 25k,
 * and so on) through the store's own put path: batches of 500 items through
 * `batch()`, deferred indexing with the default workers, `flushIndex()`,
 * then `VACUUM ANALYZE` (the state after vacuum; the planner's size estimate
 * that the fitted ef reads is then exact). The data are bench/postgres.ts's:
 * low-rank 512-d unit vectors (bench/lib/vectors.ts), items spread over
 * ["users","u1".."u1000"], fed through a lookup embedder (no embedding cost).
 *
 * At each size, for each ef: the store (`retrieval: "vector"`, prefix
 * ["users"], k 10, a pool of one connection) and raw pgvector (`SELECT key
 * FROM <schema>.memory_vectors ORDER BY embedding <=> q LIMIT 10` at the same
 * `hnsw.ef_search`, a connection of its own) alternate query by query, so
 * load from other processes hits both alike. Recall is against the exact
 * top-10 over every item put so far. "fitted" is a store with no efSearch,
 * against raw at `fittedEfSearch(n)`; `sameAsExplicit` says whether its hits
 * were those of the explicit store at that ef (the store used the fitted ef).
 *
 * Options: --sizes=10000,25000,50000,100000,300000, --queries=200,
 * --ef=50,100,200,300, --rank=32 --noise=0.05 --basis-seed=99 --seed=1 (the
 * data set; queries use seed+1), --label=NAME (results file
 * bench/results/postgres-scale-NAME.json; default "lowrank").
 * Run: npm run bench:postgres-scale (DATABASE_URL, or a throwaway cluster).
 * On 2 shared cores at load 10 to 24 the 300k build took 65 minutes of puts
 * and the whole run 77 (2026-12-03); a quiet machine puts about 4x faster.
 * Not part of CI.
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import pg from "pg";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { fittedEfSearch } from "../src/store/postgres/fitted-ef.js";
import { vectorParam } from "../src/store/postgres/sql.js";
import { benchServer } from "./lib/pg-server.js";
import { exactTopK, latency, lowRankUnitVectors, PrecomputedEmbeddings, recallAtK, row } from "./lib/vectors.js";

const DIMS = 512;
const K = 10;
const BATCH = 500;
const WARMUP = 3;
const SCHEMA = "bench_scale";
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const num = (name: string, fallback: number) => Number(args.get(name) ?? fallback);
const sizes = (args.get("sizes") ?? "10000,25000,50000,100000,300000").split(",").map(Number).sort((a, b) => a - b);
const nQueries = num("queries", 200);
const efs = (args.get("ef") ?? "50,100,200,300").split(",").filter(Boolean).map(Number);
const gen = { rank: num("rank", 32), noise: num("noise", 0.05), basisSeed: num("basis-seed", 99) };
const seed = num("seed", 1);
const label = args.get("label") ?? "lowrank";

const userOf = (i: number) => (i < 100 ? "u1" : `u${2 + (i % 999)}`);
const load = () => Number(os.loadavg()[0].toFixed(2));

interface Side {
  p50: number;
  p95: number;
  recall: number;
}
interface Point {
  ef: number | "fitted";
  efSearch: number;
  ours: Side;
  raw: Side;
  /** ours p50 / raw p50. */
  ratio: number;
  sameAsExplicit?: boolean;
  load: number;
}

/**
 * The exact top-k over rows [0, to) from the top-k over [0, from) and the
 * rows [from, to): one pass over each row in all, however many sizes.
 */
function growExact(prev: Int32Array[] | undefined, data: Float32Array, queries: Float32Array, from: number, to: number): Int32Array[] {
  const fresh = exactTopK(data, queries, DIMS, K, from, to);
  if (!prev) return fresh;
  const dot = (q: number, r: number) => {
    let s = 0;
    for (let j = 0; j < DIMS; j++) s += queries[q * DIMS + j]! * data[r * DIMS + j]!;
    return s;
  };
  return fresh.map((f, q) => Int32Array.from([...prev[q]!, ...f].map((r) => ({ r, s: dot(q, r) })).sort((a, b) => b.s - a.s).slice(0, K).map((x) => x.r)));
}

async function main() {
  const { url, stop } = await benchServer("bench:postgres-scale");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  const max = sizes[sizes.length - 1]!;
  const data = lowRankUnitVectors(max, DIMS, seed, gen);
  const queries = lowRankUnitVectors(nQueries, DIMS, seed + 1, gen);
  const qs = Array.from({ length: nQueries }, (_, q) => vectorParam(row(queries, DIMS, q)));
  const index = { dims: DIMS, embeddings: new PrecomputedEmbeddings(data, queries, DIMS), fields: ["text"] };
  const storeWith = async (efSearch?: number) => {
    const s = new PostgresMemoryStore({ connectionString: url, schema: SCHEMA, poolConfig: { max: 1 }, index, retrieval: "vector", hnsw: efSearch === undefined ? {} : { efSearch } });
    await s.setup();
    return s;
  };
  const header = { at: new Date().toISOString(), postgres: version, cpus: os.cpus().length, load: os.loadavg(), label, gen, seed, queries: nQueries, efs };
  console.log(`bench:postgres-scale ${JSON.stringify(header)}`);
  const builder = new PostgresMemoryStore({ connectionString: url, schema: SCHEMA, index, retrieval: "vector" });
  await builder.setup();
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  const points: Record<string, unknown>[] = [];
  let built = 0;
  let buildMs = 0;
  let exact: Int32Array[] | undefined;
  try {
    for (const n of sizes) {
      // Grow the tables to n through the store's put path, until every vector is indexed.
      const loadBefore = load();
      const t = performance.now();
      for (let s = built; s < n; s += BATCH) {
        const ops = [];
        for (let i = s; i < Math.min(n, s + BATCH); i++) ops.push({ namespace: ["users", userOf(i)], key: `r${i}`, value: { text: `v:${i}` } });
        await builder.batch(ops);
        if ((s / BATCH) % 20 === 0) process.stderr.write(`  ${label}: ${s + BATCH} put\r`);
      }
      await builder.flushIndex();
      const segmentMs = performance.now() - t;
      buildMs += segmentMs;
      await admin.query(`VACUUM ANALYZE ${SCHEMA}.memory_items, ${SCHEMA}.memory_vectors, ${SCHEMA}.memory_pending_vectors`);
      const build = { from: built, putPerSec: Math.round((n - built) / (segmentMs / 1000)), totalSeconds: Math.round(buildMs / 1000), loadBefore, loadAfter: load() };
      exact = growExact(exact, data, queries, built, n);
      built = n;
      const truth = exact;

      const ids = (hits: { key: string }[]) => hits.map((h) => Number(h.key.slice(1)));
      const measure = async (store: PostgresMemoryStore, efSearch: number) => {
        await raw.query(`SET hnsw.ef_search = ${efSearch}`);
        const samples: number[][] = [[], []];
        const got: number[][][] = [[], []];
        const sides = [
          async (q: number) => ids(await store.search(["users"], { query: `q:${q}`, limit: K })),
          async (q: number) => ids((await raw.query<{ key: string }>(`SELECT key FROM ${SCHEMA}.memory_vectors ORDER BY embedding <=> $1::vector LIMIT ${K}`, [qs[q]])).rows),
        ];
        for (let q = -WARMUP; q < nQueries; q++) {
          for (let s = 0; s < 2; s++) {
            const at = performance.now();
            const hits = await sides[s]!(q < 0 ? nQueries + q : q);
            if (q >= 0) samples[s]!.push(performance.now() - at), got[s]!.push(hits);
          }
        }
        const side = (s: number): Side => {
          const l = latency(samples[s]!);
          return { p50: l.p50, p95: l.p95, recall: Number(recallAtK(got[s]!, truth).toFixed(4)) };
        };
        const ours = side(0);
        const rawSide = side(1);
        return { point: { ours, raw: rawSide, ratio: Number((ours.p50 / rawSide.p50).toFixed(3)), load: load() }, hits: got[0]! };
      };

      const sweep: Point[] = [];
      const hitsAt = new Map<number, number[][]>();
      for (const ef of efs) {
        const store = await storeWith(ef);
        try {
          const { point, hits } = await measure(store, ef);
          hitsAt.set(ef, hits);
          sweep.push({ ef, efSearch: ef, ...point });
        } finally {
          await store.close();
        }
      }
      const fittedEf = fittedEfSearch(n);
      const fitted = await storeWith();
      try {
        const { point, hits } = await measure(fitted, fittedEf);
        const explicit = hitsAt.get(fittedEf);
        sweep.push({ ef: "fitted", efSearch: fittedEf, ...point, ...(explicit ? { sameAsExplicit: JSON.stringify(explicit) === JSON.stringify(hits) } : {}) });
      } finally {
        await fitted.close();
      }
      const sizeRow = (await admin.query<{ items: string; index: string }>(
        `SELECT pg_total_relation_size('${SCHEMA}.memory_vectors') AS items, pg_relation_size(i.indexrelid) AS index FROM pg_index i WHERE i.indrelid = '${SCHEMA}.memory_vectors'::regclass AND i.indexrelid::regclass::text LIKE '%hnsw%' LIMIT 1`,
      )).rows[0];
      const point = { n, build, vectorsBytes: Number(sizeRow?.items ?? 0), hnswBytes: Number(sizeRow?.index ?? 0), sweep };
      console.log(JSON.stringify(point));
      points.push(point);
    }
  } finally {
    await builder.close();
    await raw.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await admin.end();
    stop?.();
  }
  const lines = tableLines(points as unknown as { n: number; sweep: Point[] }[]);
  for (const l of lines) console.log(l);
  await mkdir("bench/results", { recursive: true });
  await writeFile(`bench/results/postgres-scale-${label}.json`, JSON.stringify({ ...header, end: new Date().toISOString(), loadEnd: os.loadavg(), points, lines }, null, 2));
}

/** The docs' table (one row per size and ef) and the recall target per size at the fitted ef. */
function tableLines(points: { n: number; sweep: Point[] }[]): string[] {
  const lines = ["| n | ef_search | ours recall@10 | raw recall@10 | ours p50 / p95 ms | raw p50 / p95 ms | ours / raw p50 | load |", "|---|---|---|---|---|---|---|---|"];
  for (const p of points) {
    for (const s of p.sweep) {
      const ef = s.ef === "fitted" ? `**${s.efSearch} (fitted)**` : String(s.ef);
      lines.push(`| ${p.n} | ${ef} | ${s.ours.recall} | ${s.raw.recall} | ${s.ours.p50} / ${s.ours.p95} | ${s.raw.p50} / ${s.raw.p95} | ${s.ratio} | ${s.load} |`);
    }
  }
  for (const p of points) {
    const f = p.sweep.find((s) => s.ef === "fitted")!;
    const cheaper = p.sweep.filter((s) => s.ef !== "fitted" && s.efSearch < f.efSearch && s.ours.recall >= 0.98).map((s) => s.efSearch);
    lines.push(
      `target recall@10 >= 0.98 at ${p.n} (fitted ef_search ${f.efSearch}): ${f.ours.recall >= 0.98 ? "MET" : "MISSED"} — ${f.ours.recall}` +
        (cheaper.length ? `; a smaller ef already held it: ${cheaper.join(", ")}` : ""),
    );
  }
  return lines;
}

await main();
