/**
 * Profiling loop for HNSWStore's fixed cost per search (see bench/floor.ts):
 * one side only, many searches in a row, so that a CPU profile or callgrind
 * sees nothing but that side.
 *
 * Data: bench:floor's (N low-rank unit vectors over ["users","u1".."u1000"],
 * queries sharing no word with any document). The store directory is built
 * once into --dir and reused by later runs.
 *
 * Options: --side=hybrid|vector|raw --iters=3000 --n=30000 --dims=256 --ef=200
 * --dir=$TMPDIR/floor-profile-<n>-<dims> --profile (sample the timed loop, 25 µs
 * interval, and print each function's share of self and total time, top --top=30)
 * --walk=stub: the graph walk answers with a copy of its answer computed
 * beforehand (as hnswlib-node builds it: two fresh arrays), so that what is
 * timed and profiled is the store's fixed cost alone, away from the walk's
 * noise; the raw side then times the stub itself.
 * Run: npx tsx bench/floor-profile.ts --side=hybrid --profile
 * CPU time and profile cover the timed loop only (after 200 untimed searches).
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { join } from "node:path";
import hnswlib from "hnswlib-node";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings, row } from "./lib/vectors.js";
import { cpuMs } from "./lib/timing.js";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const SIDE = args.get("side") ?? "hybrid";
const ITERS = Number(args.get("iters") ?? 3000);
const N = Number(args.get("n") ?? 30_000);
const DIMS = Number(args.get("dims") ?? 256);
const EF = Number(args.get("ef") ?? 200);
const WARMUP = Number(args.get("warmup") ?? 200);
const QUERIES = 330;
const STUB = args.get("walk") === "stub";
const dir = args.get("dir") ?? join(os.tmpdir(), `floor-profile-${N}-${DIMS}`);
if (!["hybrid", "vector", "raw"].includes(SIDE)) throw new Error(`floor-profile: --side must be hybrid, vector or raw, got ${SIDE}`);

const queries = lowRankUnitVectors(QUERIES, DIMS, 2);
const built = existsSync(join(dir, "manifest.json"));
// The documents' vectors are needed only to build the store.
const data = built ? new Float32Array(0) : lowRankUnitVectors(N, DIMS, 1);
const index = { dims: DIMS, embeddings: new PrecomputedEmbeddings(data, queries, DIMS), fields: ["text"] };
const hnsw = { efSearch: EF };

if (!built) {
  const build = new HNSWStore({ path: dir, index, embeddingCache: false, durability: "process", hnsw });
  for (let s = 0; s < N; s += 1000) {
    const ops = [];
    for (let i = s; i < Math.min(N, s + 1000); i++) ops.push({ namespace: ["users", `u${1 + (i % 1000)}`], key: `r${i}`, value: { text: idText("v", i) } });
    await build.batch(ops);
  }
  await build.close();
}

type Knn = { distances: number[]; neighbors: number[] };
interface Graph {
  setEf(ef: number): void;
  getCurrentCount(): number;
  getMaxElements(): number;
  searchKnn(q: number[], k: number, filter?: (label: number) => boolean): Knn;
}

/**
 * A graph whose walk answers query `current()` with a copy of what `graph`
 * answered beforehand for each query and k (k of 10 and 50; any other k
 * walks). The query array is read through, as hnswlib-node reads it.
 */
function stubbedWalk(graph: Graph, current: () => number): Graph {
  const answers = new Map<number, Knn[]>();
  const qs = Array.from({ length: QUERIES }, (_, q) => row(queries, DIMS, q));
  for (const k of [10, 50]) {
    graph.setEf(EF);
    answers.set(k, qs.map((q) => graph.searchKnn(q, k)));
  }
  return {
    setEf: (ef) => graph.setEf(ef),
    getCurrentCount: () => graph.getCurrentCount(),
    getMaxElements: () => graph.getMaxElements(),
    searchKnn: (q, k, filter) => {
      let sum = 0;
      for (let i = 0; i < q.length; i++) sum += q[i]!;
      const answer = answers.get(k)?.[current()];
      if (!answer || Number.isNaN(sum) || filter) return graph.searchKnn(q, k, filter);
      return { distances: [...answer.distances], neighbors: [...answer.neighbors] };
    },
  };
}

let current = 0;
let run: (q: number) => unknown;
let close = async () => {};
if (SIDE === "raw") {
  const file = (await readdir(dir)).find((f) => /^vectors-\d+\.hnsw$/.test(f));
  if (!file) throw new Error(`floor-profile: no vectors-*.hnsw in ${dir}`);
  const raw = new hnswlib.HierarchicalNSW("cosine", DIMS);
  raw.readIndexSync(join(dir, file), false);
  raw.setEf(EF);
  const qs = Array.from({ length: QUERIES }, (_, q) => row(queries, DIMS, q));
  const graph: Graph = STUB ? stubbedWalk(raw, () => current) : raw;
  run = (q) => graph.searchKnn(qs[(current = q % QUERIES)]!, 10).neighbors;
} else {
  const store = new HNSWStore({ path: dir, index, embeddingCache: false, hnsw });
  await store.open();
  if (STUB) {
    // The store's VectorIndex keeps its hnswlib index in `graph` (loaded in the background after open).
    const vectors = (store as unknown as { state: { vectors: { graph?: Graph; whenLoaded(): Promise<void> } } }).state.vectors;
    await vectors.whenLoaded();
    vectors.graph = stubbedWalk(vectors.graph!, () => current);
  }
  const retrieval = SIDE === "vector" ? ("vector" as const) : undefined;
  run = (q) => store.search([], { query: idText("q", (current = q % QUERIES)), limit: 10, retrieval });
  close = () => store.close();
}

for (let q = 0; q < WARMUP; q++) await run(q);
const session = args.has("profile") ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 25 });
  await session.post("Profiler.start");
}
const c0 = cpuMs();
const t0 = performance.now();
for (let q = 0; q < ITERS; q++) await run(q);
const cpu = cpuMs() - c0;
const wall = performance.now() - t0;
if (session) printShares((await session.post("Profiler.stop")).profile, Number(args.get("top") ?? 30));
await close();
console.log(JSON.stringify({ side: SIDE, iters: ITERS, cpuUsPerSearch: Number(((cpu * 1000) / ITERS).toFixed(1)), wallUsPerSearch: Number(((wall * 1000) / ITERS).toFixed(1)), loadavg: os.loadavg().map((l) => Number(l.toFixed(2))) }));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/**
 * Each function's share of the samples: self (on top of the stack) and
 * total (anywhere on it, counted once per sample), largest self first.
 */
function printShares(profile: { nodes: ProfileNode[] }, top: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const nameOf = (n: ProfileNode) => {
    const { functionName, url } = n.callFrame;
    const file = url.replace(/^.*\/(src|bench|node_modules)\//, "$1/");
    return `${functionName || "(anonymous)"}${file ? ` ${file}` : ""}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  const walk = (n: ProfileNode, onStack: Set<string>) => {
    const name = nameOf(n);
    const added = !onStack.has(name);
    if (added) onStack.add(name);
    const hits = n.hitCount ?? 0;
    if (hits > 0) {
      self.set(name, (self.get(name) ?? 0) + hits);
      for (const f of onStack) total.set(f, (total.get(f) ?? 0) + hits);
      all += hits;
    }
    for (const c of n.children ?? []) walk(byId.get(c)!, onStack);
    if (added) onStack.delete(name);
  };
  walk(profile.nodes[0]!, new Set());
  const pct = (x: number) => `${((100 * x) / all).toFixed(1).padStart(5)}%`;
  console.log("  self  total  function");
  for (const [name, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(hits)} ${pct(total.get(name)!)}  ${name}`);
  console.log("by total:");
  for (const [name, hits] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(self.get(name) ?? 0)} ${pct(hits)}  ${name}`);
}
