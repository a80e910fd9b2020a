/**
 * Benchmark: HNSWStore with encryption at rest on vs off, same data.
 *
 * For each N (10k and 100k by default; `--sizes=N,N`), 512-d embedding-like
 * unit vectors (bench/lib/vectors.ts) reach the store through
 * PrecomputedEmbeddings, so no embedding cost is measured; the store keeps its
 * default embedding cache (encrypted too when encryption is on). Measured:
 * put throughput (batches of 1000, fsync), open time (cold open + first
 * search after a clean close), disk size, and search p50/p95 over 200 queries
 * (whole store, `retrieval: "vector"`, after 20 warm-up queries). Off and on
 * are built one after the other (alternating which goes first per size);
 * then both are opened and their searches interleaved, query by query, so
 * that the machine's load and the collector's work fall on both alike.
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

const WARMUP = 20;

interface Built {
  encrypted: boolean;
  dir: string;
  make: () => HNSWStore;
  putsPerSecond: number;
  diskMB: number;
}

/** Fills a directory with `n` items (encrypted or not) and closes it. */
async function build(n: number, encrypted: boolean, embeddings: PrecomputedEmbeddings): Promise<Built> {
  const dir = await mkdtemp(join(os.tmpdir(), "bench-enc-"));
  const key = randomBytes(32);
  const make = () =>
    new HNSWStore({
      path: dir,
      index: { dims: DIMS, embeddings, fields: ["text"] },
      retrieval: "vector",
      encryption: encrypted ? { key } : undefined,
    });
  const store = make();
  const t0 = performance.now();
  for (let start = 0; start < n; start += 1000) {
    const ops = [];
    for (let i = start; i < Math.min(n, start + 1000); i++) ops.push({ namespace: ["users", `u${i % 1000}`], key: `k${i}`, value: { text: `v:${i}` } });
    await store.batch(ops);
  }
  const putSeconds = (performance.now() - t0) / 1000;
  await store.close();
  const disk = await dirSize(dir);
  return { encrypted, dir, make, putsPerSecond: Math.round(n / putSeconds), diskMB: Math.round((disk / 2 ** 20) * 10) / 10 };
}

const results = [];
for (const [at, n] of sizes.entries()) {
  const data = lowRankUnitVectors(n, DIMS, 1);
  const queries = lowRankUnitVectors(QUERIES, DIMS, 2, { basisSeed: 1 });
  const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
  // Alternate which goes first from one size to the next.
  const order = at % 2 === 0 ? [false, true] : [true, false];
  const built: Built[] = [];
  for (const enc of order) built.push(await build(n, enc, embeddings));
  // Cold open (+ a first search) of each, one after the other…
  const open = new Map<Built, { store: HNSWStore; openMs: number; samples: number[] }>();
  for (const b of built) {
    const o0 = performance.now();
    const store = b.make();
    await store.search([], { query: "q:0", limit: 10 });
    open.set(b, { store, openMs: Math.round(performance.now() - o0), samples: [] });
  }
  // …then the same queries on both, interleaved, so load on the machine and
  // the collector's work after either open fall on both alike.
  for (let q = 0; q < WARMUP + QUERIES; q++) {
    for (const b of q % 2 === 0 ? built : [...built].reverse()) {
      const o = open.get(b)!;
      const s0 = performance.now();
      await o.store.search([], { query: `q:${q % QUERIES}`, limit: 10 });
      if (q >= WARMUP) o.samples.push(performance.now() - s0);
    }
  }
  const pair = [];
  for (const b of built) {
    const o = open.get(b)!;
    await o.store.close();
    await rm(b.dir, { recursive: true, force: true });
    const r = { n, encrypted: b.encrypted, putsPerSecond: b.putsPerSecond, search: latency(o.samples), openMs: o.openMs, diskMB: b.diskMB };
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
