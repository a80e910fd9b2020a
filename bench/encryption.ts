/**
 * Benchmark: HNSWStore with encryption at rest on vs off, same data.
 *
 * For each N (10k and 100k by default; `--sizes=N,N`), 512-d embedding-like
 * unit vectors (bench/lib/vectors.ts) reach the store through
 * PrecomputedEmbeddings, so no embedding cost is measured; the store keeps its
 * default embedding cache (encrypted too when encryption is on). Measured:
 * put throughput (batches of 1000, fsync), search p50/p95 over 200 queries
 * (whole store, `retrieval: "vector"`), open time (cold open + first search
 * after a clean close), and disk size. Off and on run one after the other in
 * one process, in alternating order per size.
 *
 * Run: npm run bench:encryption  → bench/results/encryption.json
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { latency, lowRankUnitVectors, PrecomputedEmbeddings } from "./lib/vectors.js";

const DIMS = 512;
const QUERIES = 200;
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const sizes = (arg("sizes") ?? "10000,100000").split(",").map(Number);

async function dirSize(dir: string): Promise<number> {
  let total = 0;
  for (const f of await readdir(dir)) total += (await stat(join(dir, f))).size;
  return total;
}

async function run(n: number, encrypted: boolean, data: Float32Array, queries: Float32Array) {
  const dir = await mkdtemp(join(os.tmpdir(), "bench-enc-"));
  const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
  const key = randomBytes(32);
  const make = () =>
    new HNSWStore({
      path: dir,
      index: { dims: DIMS, embeddings, fields: ["text"] },
      retrieval: "vector",
      encryption: encrypted ? { key } : undefined,
    });
  let store = make();
  const t0 = performance.now();
  for (let start = 0; start < n; start += 1000) {
    const ops = [];
    for (let i = start; i < Math.min(n, start + 1000); i++) ops.push({ namespace: ["users", `u${i % 1000}`], key: `k${i}`, value: { text: `v:${i}` } });
    await store.batch(ops);
  }
  const putSeconds = (performance.now() - t0) / 1000;
  await store.close();
  const disk = await dirSize(dir);
  const o0 = performance.now();
  store = make();
  await store.search([], { query: "q:0", limit: 10 });
  const openMs = performance.now() - o0;
  const samples: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const s0 = performance.now();
    await store.search([], { query: `q:${q}`, limit: 10 });
    samples.push(performance.now() - s0);
  }
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return { n, encrypted, putsPerSecond: Math.round(n / putSeconds), search: latency(samples), openMs: Math.round(openMs), diskMB: Math.round((disk / 2 ** 20) * 10) / 10 };
}

const results = [];
for (const n of sizes) {
  const data = lowRankUnitVectors(n, DIMS, 1);
  const queries = lowRankUnitVectors(QUERIES, DIMS, 2, { basisSeed: 1 });
  const order = results.length % 2 === 0 ? [false, true] : [true, false];
  const pair = [];
  for (const enc of order) {
    const r = await run(n, enc, data, queries);
    console.log(JSON.stringify(r));
    pair.push(r);
  }
  const off = pair.find((r) => !r.encrypted)!;
  const on = pair.find((r) => r.encrypted)!;
  const ratio = on.search.p50 / off.search.p50;
  console.log(
    `N=${n}: puts/s ${off.putsPerSecond} → ${on.putsPerSecond}; search p50 ${off.search.p50} → ${on.search.p50} ms (×${ratio.toFixed(2)}, target ≤ 1.2: ${ratio <= 1.2 ? "met" : "MISSED"}); open ${off.openMs} → ${on.openMs} ms; disk ${off.diskMB} → ${on.diskMB} MB`,
  );
  results.push(off, on);
}
await mkdir("bench/results", { recursive: true });
await writeFile("bench/results/encryption.json", JSON.stringify({ machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`, at: new Date().toISOString(), results }, null, 2));
