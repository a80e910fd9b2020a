/**
 * Benchmark: cold open of a 100k-item, 512-d HNSWStore directory.
 *
 * Builds the directory once (embedding-like unit vectors through
 * PrecomputedEmbeddings, `durability: "process"`, `embeddingCache: false`,
 * `retrieval: "vector"`) under `--dir` (default: a folder in the OS temp
 * directory, reused across runs), then opens it `--runs` times (default 5),
 * each in a fresh child process, and reports p50 of `open()`, of open + one
 * user's search (1,000 memories: an exact scan, which does not wait for the
 * graph) and of open + a whole-store search (an HNSW walk, which waits until
 * hnswlib has read the graph in the background). With `--old=<dir>` it also opens a directory written
 * in an older format (e.g. format 2) the same way, for comparison, with the
 * code under `--old-src=<src dir>` when given (e.g. the format-2 release's
 * `src/`, from `git archive <commit> src`), else this code.
 *
 * Run: npm run bench:open [-- --n=100000 --runs=5 --dir=/tmp/x --old=/tmp/y --old-src=/tmp/old/src]
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { readManifest } from "../src/store/hnsw/snapshot.js";
import { idText, lowRankUnitVectors, PrecomputedEmbeddings } from "./lib/vectors.js";

const DIMS = 512;
const TARGET_MS = 600;
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const n = Number(arg("n") ?? 100_000);
const runs = Number(arg("runs") ?? 5);
const dir = arg("dir") ?? join(os.tmpdir(), `lhm-bench-open-${n}`);
const old = arg("old");
const oldSrc = arg("old-src");

const makeStore = (path: string, embeddings: PrecomputedEmbeddings) =>
  new HNSWStore({ path, index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "vector", embeddingCache: false, durability: "process" });

/** Builds the directory: `n` items in 100 users' namespaces, batches of 1000. */
async function build(path: string): Promise<void> {
  const data = lowRankUnitVectors(n, DIMS, 1);
  const store = makeStore(path, new PrecomputedEmbeddings(data, lowRankUnitVectors(1, DIMS, 2, { basisSeed: 1 }), DIMS));
  const t0 = performance.now();
  for (let start = 0; start < n; start += 1000) {
    const ops = [];
    for (let i = start; i < Math.min(n, start + 1000); i++) {
      ops.push({ namespace: ["users", `u${i % 100}`, "memories"], key: `k${i}`, value: { text: idText("v", i), kind: i % 3 === 0 ? "fact" : "episode", importance: i % 10, tags: ["bench", `t${i % 7}`], note: `memory number ${i} of the cold-open benchmark` } });
    }
    await store.batch(ops);
  }
  await store.close();
  console.log(`built ${n} items in ${path} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** In a child: open (with the code under `src`), time it, search once, print JSON; nothing is written. */
async function child(path: string, src: string | undefined): Promise<void> {
  const embeddings = new PrecomputedEmbeddings(new Float32Array(DIMS), lowRankUnitVectors(1, DIMS, 2, { basisSeed: 1 }), DIMS);
  const Store: typeof HNSWStore = src ? ((await import(resolve(src, "store/hnsw/hnsw-store.ts"))) as { HNSWStore: typeof HNSWStore }).HNSWStore : HNSWStore;
  const store = new Store({ path, index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "vector", embeddingCache: false, durability: "process" });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await store.open();
  const openMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const openCpuMs = (c1.user + c1.system) / 1000; // every thread of the process: main, worker, thread pool
  const hits = await store.search(["users", "u7"], { query: "q:0", limit: 10 });
  const firstSearchMs = performance.now() - t0;
  // A search of the whole store walks the graph: it answers once hnswlib has read it.
  const all = await store.search([], { query: "q:0", limit: 10 });
  const graphMs = performance.now() - t0;
  await store.close();
  console.log(JSON.stringify({ openMs, openCpuMs, firstSearchMs, graphMs, hits: Math.min(hits.length, all.length), formatVersion: readManifest(path)?.formatVersion }));
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function measure(path: string, src?: string): { openMs: number; openCpuMs: number; firstSearchMs: number; graphMs: number; formatVersion: number } {
  const openMs: number[] = [];
  const cpuMs: number[] = [];
  const searchMs: number[] = [];
  const graphMs: number[] = [];
  let formatVersion = 0;
  for (let r = 0; r < runs; r++) {
    const res = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--child", `--dir=${path}`, ...(src ? [`--src=${src}`] : [])], { encoding: "utf8" });
    if (res.status !== 0) throw new Error(`child failed: ${res.stderr}`);
    const out = JSON.parse(res.stdout.trim().split("\n").pop()!) as { openMs: number; openCpuMs: number; firstSearchMs: number; graphMs: number; hits: number; formatVersion: number };
    if (out.hits !== 10) throw new Error(`first search returned ${out.hits} hits`);
    openMs.push(out.openMs);
    cpuMs.push(out.openCpuMs);
    searchMs.push(out.firstSearchMs);
    graphMs.push(out.graphMs);
    formatVersion = out.formatVersion;
  }
  return { openMs: p50(openMs), openCpuMs: p50(cpuMs), firstSearchMs: p50(searchMs), graphMs: p50(graphMs), formatVersion };
}

if (process.argv.includes("--child")) {
  await child(dir, arg("src"));
} else {
  if (!existsSync(join(dir, "store.json"))) await build(dir);
  if (process.argv.includes("--build-only")) process.exit(0);
  const now = measure(dir);
  console.log(`${n} items, format ${now.formatVersion}: open p50 ${now.openMs.toFixed(0)} ms (CPU ${now.openCpuMs.toFixed(0)} ms), open + one user's search p50 ${now.firstSearchMs.toFixed(0)} ms, open + whole-store search (graph loaded) p50 ${now.graphMs.toFixed(0)} ms (${runs} runs, fresh processes)`);
  if (old) {
    const before = measure(old, oldSrc);
    console.log(`${n} items, format ${before.formatVersion} (${old}${oldSrc ? `, code in ${oldSrc}` : ""}): open p50 ${before.openMs.toFixed(0)} ms (CPU ${before.openCpuMs.toFixed(0)} ms), open + one user's search p50 ${before.firstSearchMs.toFixed(0)} ms, open + whole-store search p50 ${before.graphMs.toFixed(0)} ms`);
    console.log(`speed-up of open: ×${(before.openMs / now.openMs).toFixed(1)} wall, ×${(before.openCpuMs / now.openCpuMs).toFixed(1)} CPU`);
    console.log(`open ≥ 5× faster than format 2's: ${before.openMs / now.openMs >= 5 ? "MET" : "MISSED"} (×${(before.openMs / now.openMs).toFixed(1)})`);
  }
  if (n >= 100_000) console.log(`open at 100k ≤ ${TARGET_MS} ms: ${now.openMs <= TARGET_MS ? "MET" : "MISSED"} (${now.openMs.toFixed(0)} ms)`);
}
