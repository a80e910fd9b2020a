/**
 * Benchmark: HNSWStore's search against its floor, raw hnswlib-node
 * `searchKnn` on the very same graph (the index file the store wrote) at the
 * same ef, timed alternately in one process so that load from other
 * processes hits every side alike. What is left over the floor is the
 * store's fixed cost per search: embedding lookup, the batch, the plan, the
 * keyword side, per-hit bookkeeping.
 *
 * Data: N low-rank unit vectors (bench/lib/vectors.ts), items spread over
 * ["users","u1".."u1000"]; queries share no word with any document (idText),
 * so the default hybrid mode's keyword side finds nothing, as for most
 * embedding-only queries. Sides, each query in turn:
 *   - store hybrid: `search([], { query, limit: 10 })` with the store's
 *     defaults (retrieval "hybrid");
 *   - store vector: the same search with `retrieval: "vector"`, on a second
 *     store opened on a copy of the directory;
 *   - raw: `searchKnn(q, 10)` on a third copy of the graph, same ef.
 * Each side walks its own copy of the graph, and the side that goes first
 * rotates from query to query: no side walks a graph another side has just
 * brought into the CPU cache for the same query.
 * Recall@10 of each against the exact top-10.
 *
 * Options: --n=30000 --dims=256 --queries=300 --warmup=30 --ef=200 (the store's default efSearch; an
 * other value is given to every side)
 * Run: npm run bench:floor → bench/results/floor.json
 */
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import hnswlib from "hnswlib-node";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { exactTopK, idText, lowRankUnitVectors, PrecomputedEmbeddings, recallAtK, row } from "./lib/vectors.js";
import { interleaveMany } from "./lib/timing.js";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const N = Number(args.get("n") ?? 30_000);
const DIMS = Number(args.get("dims") ?? 256);
const QUERIES = Number(args.get("queries") ?? 300);
const WARMUP = Number(args.get("warmup") ?? 30);
const K = 10;
const BATCH = 1000;
/** The store's default efSearch (HnswOptions), given to raw hnswlib too. */
const EF = Number(args.get("ef") ?? 200);

const data = lowRankUnitVectors(N, DIMS, 1);
const queries = lowRankUnitVectors(QUERIES + WARMUP, DIMS, 2);
const exact = exactTopK(data, queries, DIMS, K, 0, N);
const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
const dir = await mkdtemp(join(os.tmpdir(), "bench-floor-"));
/** The vector-only side's copy of the directory. */
const dirV = `${dir}-vector`;
const index = { dims: DIMS, embeddings, fields: ["text"] };
const hnsw = args.has("ef") ? { efSearch: EF } : undefined;

try {
  const started = new Date().toISOString();
  const loadStart = os.loadavg();
  const build = new HNSWStore({ path: dir, index, embeddingCache: false, durability: "process", hnsw });
  await build.open();
  for (let s = 0; s < N; s += BATCH) {
    const ops = [];
    for (let i = s; i < Math.min(N, s + BATCH); i++) ops.push({ namespace: ["users", `u${1 + (i % 1000)}`], key: `r${i}`, value: { text: idText("v", i) } });
    await build.batch(ops);
  }
  await build.close();

  // The vector-only side gets a store of its own, on a copy of the directory.
  await cp(dir, dirV, { recursive: true });
  const store = new HNSWStore({ path: dir, index, embeddingCache: false, hnsw });
  await store.open();
  const storeV = new HNSWStore({ path: dirV, index, embeddingCache: false, hnsw });
  await storeV.open();
  const file = (await readdir(dir)).find((f) => /^vectors-\d+\.hnsw$/.test(f));
  if (!file) throw new Error(`bench:floor: no vectors-*.hnsw in ${dir}`);
  const raw = new hnswlib.HierarchicalNSW("cosine", DIMS);
  raw.readIndexSync(join(dir, file), false);
  raw.setEf(EF);
  const qs = Array.from({ length: QUERIES + WARMUP }, (_, q) => row(queries, DIMS, q));

  const ids = { hybrid: [] as number[][], vector: [] as number[][], raw: [] as number[][] };
  const keep = (side: keyof typeof ids, q: number, got: number[]) => {
    if (q >= WARMUP) ids[side][q - WARMUP] = got;
  };
  const keys = (r: { key: string }[]) => r.map((x) => Number(x.key.slice(1)));
  const [h, v, r] = await interleaveMany(QUERIES, WARMUP, [
    async (q) => keep("hybrid", q, keys(await store.search([], { query: idText("q", q), limit: K }))),
    async (q) => keep("vector", q, keys(await storeV.search([], { query: idText("q", q), limit: K, retrieval: "vector" }))),
    (q) => keep("raw", q, raw.searchKnn(qs[q]!, K).neighbors),
  ], { rotate: true });
  const truth = exact.slice(WARMUP);
  const recall = (side: keyof typeof ids) => Number(recallAtK(ids[side], truth).toFixed(4));
  const result = {
    at: started,
    n: N,
    dims: DIMS,
    ef: EF,
    queries: QUERIES,
    cpus: os.cpus().length,
    loadavg: { start: loadStart, end: os.loadavg() },
    hybrid: { ...h!.lat, cpuMs: h!.cpuMs, recall: recall("hybrid") },
    vector: { ...v!.lat, cpuMs: v!.cpuMs, recall: recall("vector") },
    raw: { ...r!.lat, cpuMs: r!.cpuMs, recall: recall("raw") },
    ratio: {
      hybridP50: Number((h!.lat.p50 / r!.lat.p50).toFixed(3)),
      hybridP95: Number((h!.lat.p95 / r!.lat.p95).toFixed(3)),
      hybridCpu: Number((h!.cpuMs / r!.cpuMs).toFixed(3)),
      vectorP50: Number((v!.lat.p50 / r!.lat.p50).toFixed(3)),
      vectorP95: Number((v!.lat.p95 / r!.lat.p95).toFixed(3)),
      vectorCpu: Number((v!.cpuMs / r!.cpuMs).toFixed(3)),
    },
  };
  console.log(JSON.stringify(result, null, 2));
  const ok = result.ratio.hybridP50 <= 1.3 && result.hybrid.recall >= result.raw.recall - 1e-9;
  console.log(`target default search <= 1.3x raw searchKnn: ${ok ? "MET" : "MISSED"} — ${h!.lat.p50} vs ${r!.lat.p50} ms p50 = ${result.ratio.hybridP50}x (cpu ${result.ratio.hybridCpu}x), recall ${result.hybrid.recall} vs ${result.raw.recall}; load ${os.loadavg()[0].toFixed(2)}`);
  console.log(`p50 / p95 over raw: hybrid ${result.ratio.hybridP50}x / ${result.ratio.hybridP95}x, vector ${result.ratio.vectorP50}x / ${result.ratio.vectorP95}x; recall vector ${result.vector.recall}`);
  await store.close();
  await storeV.close();
  await mkdir("bench/results", { recursive: true });
  await writeFile("bench/results/floor.json", JSON.stringify(result, null, 2) + "\n");
} finally {
  await rm(dir, { recursive: true, force: true });
  await rm(dirV, { recursive: true, force: true });
}
