/**
 * Benchmark: the memory server (RemoteStore → HTTP on 127.0.0.1 → a server
 * process → HNSWStore) against HNSWStore called in-process, for put and
 * search, at 1, 8 and 32 concurrent clients.
 *
 * Both stores are on disk (temp dirs), durability "fsync" (the default),
 * 512-d vectors; they are preloaded with 2,000 items. Vectors are
 * precomputed ({@link PrecomputedEmbeddings}: "v:123" → row 123, "q:5" →
 * query 5), so the embedder is not measured. The server runs in a child
 * process (this script with `--serve`), so client and server do not share
 * an event loop. Each cell is bounded: at most --ops operations (400) or
 * --seconds (8), whichever comes first. A put is one new item; a search is
 * a top-10 query over the whole store.
 *
 * Run: npm run bench:server  → prints a table, writes bench/results/server.json
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { RemoteStore } from "../src/store/remote/remote-store.js";
import { latency, PrecomputedEmbeddings, randomUnitVectors } from "./lib/vectors.js";

const DIMS = 512;
const PRELOAD = 2000;
const CONCURRENCY = [1, 8, 32];
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const MAX_OPS = arg("ops", 400);
const MAX_SECONDS = arg("seconds", 8);
const CAPACITY = PRELOAD + MAX_OPS * CONCURRENCY.length + 10;
const API_KEY = "bench-server-key-0001";

function makeStore(dir: string): HNSWStore {
  const data = randomUnitVectors(CAPACITY, DIMS, 1);
  const queries = randomUnitVectors(200, DIMS, 2);
  return new HNSWStore({
    path: dir,
    index: { dims: DIMS, embeddings: new PrecomputedEmbeddings(data, queries, DIMS), fields: ["text"] },
    retrieval: "vector",
    embeddingCache: false,
    logger: { warn: () => {} },
  });
}

async function preload(store: BaseStore): Promise<void> {
  for (let start = 0; start < PRELOAD; start += 500) {
    const ops = [];
    for (let i = start; i < Math.min(PRELOAD, start + 500); i++) ops.push({ namespace: ["users", `u${i % 50}`], key: `k${i}`, value: { text: `v:${i}` } });
    await store.batch(ops);
  }
}

/** Child mode: a memory server over a preloaded store. */
async function serve(dir: string): Promise<void> {
  const { startMemoryServer } = await import("../src/server/index.js");
  const store = makeStore(dir);
  await preload(store);
  const server = await startMemoryServer({ store, apiKey: API_KEY, port: 0, logger: false });
  process.stdout.write(`listening on ${server.url}\n`);
}

interface Cell {
  target: string;
  op: "put" | "search";
  clients: number;
  ops: number;
  seconds: number;
  reqPerSec: number;
  p50ms: number;
  p95ms: number;
}

let nextItem = PRELOAD;

async function runCell(store: BaseStore, target: string, op: "put" | "search", clients: number): Promise<Cell> {
  const samples: number[] = [];
  let issued = 0;
  const t0 = performance.now();
  const deadline = t0 + MAX_SECONDS * 1000;
  const client = async () => {
    while (issued < MAX_OPS && performance.now() < deadline) {
      issued++;
      const start = performance.now();
      if (op === "put") {
        const i = nextItem++;
        await store.put(["users", `u${i % 50}`], `k${i}`, { text: `v:${i}` });
      } else {
        await store.search([], { query: `q:${issued % 200}`, limit: 10 });
      }
      samples.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const seconds = (performance.now() - t0) / 1000;
  const l = latency(samples);
  return { target, op, clients, ops: samples.length, seconds: Math.round(seconds * 100) / 100, reqPerSec: Math.round(samples.length / seconds), p50ms: l.p50, p95ms: l.p95 };
}

async function main(): Promise<void> {
  const cells: Cell[] = [];
  const tmp = await mkdtemp(join(os.tmpdir(), "bench-server-"));
  try {
    // In-process.
    nextItem = PRELOAD;
    const local = makeStore(join(tmp, "local"));
    await preload(local);
    for (const op of ["put", "search"] as const) for (const c of CONCURRENCY) cells.push(await runCell(local, "HNSWStore in-process", op, c));
    await local.close();

    // Through the server, in a child process.
    nextItem = PRELOAD;
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--serve", join(tmp, "served")], { stdio: ["ignore", "pipe", "inherit"] });
    const url = await new Promise<string>((resolve, reject) => {
      let buf = "";
      child.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        const m = /listening on (\S+)/.exec(buf);
        if (m) resolve(m[1]);
      });
      child.once("exit", (code) => reject(new Error(`server exited (${code})`)));
    });
    const remote = new RemoteStore({ url, apiKey: API_KEY });
    for (const op of ["put", "search"] as const) for (const c of CONCURRENCY) cells.push(await runCell(remote, "RemoteStore → server", op, c));
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }

  console.log(`\n${PRELOAD} items preloaded, 512-d, fsync; each cell ≤ ${MAX_OPS} ops or ≤ ${MAX_SECONDS} s\n`);
  console.log("| target | op | clients | ops | req/s | p50 ms | p95 ms |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const c of cells) console.log(`| ${c.target} | ${c.op} | ${c.clients} | ${c.ops} | ${c.reqPerSec} | ${c.p50ms.toFixed(2)} | ${c.p95ms.toFixed(2)} |`);
  const out = join(fileURLToPath(new URL(".", import.meta.url)), "results");
  await mkdir(out, { recursive: true });
  await writeFile(join(out, "server.json"), JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus().length, preload: PRELOAD, dims: DIMS, maxOps: MAX_OPS, maxSeconds: MAX_SECONDS, cells }, null, 2) + "\n");
}

const serveAt = process.argv.indexOf("--serve");
if (serveAt >= 0) await serve(process.argv[serveAt + 1]);
else await main();
