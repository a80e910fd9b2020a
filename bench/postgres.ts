/**
 * Benchmark: PostgresMemoryStore vs LangGraph's PostgresStore
 * (@langchain/langgraph-checkpoint-postgres) vs HNSWStore, on the same
 * embedding-like 512-d unit vectors (bench/lib/vectors.ts, low rank + noise).
 *
 * The two PostgreSQL stores each get their own PGlite (PostgreSQL 18 + pgvector
 * 0.8 in WebAssembly) on a temp directory, served over a local socket to the
 * `pg` driver (pool of 1), so both pay the same engine and driver costs.
 * HNSWStore runs on a temp directory. Vectors reach every store through
 * PrecomputedEmbeddings, so no embedding cost is measured.
 *
 * Layout: items 0..99 belong to ["users","u1"]; the rest are spread over
 * ["users","u2".."u1000"] (so "u10", "u100" … exist next to "u1").
 * - put: batches of 500 items (items/s);
 * - search all: prefix ["users"] (PostgresStore refuses an empty prefix), k=10,
 *   recall@10 against the exact top-10 over all items;
 * - search one user: prefix ["users","u1"], recall against the exact top-10 of
 *   rows 0..99, and a leak check: every hit must be in ["users","u1"];
 * - cold start: close, reopen (PGlite boot included), first search;
 * - disk: bytes of the directory.
 *
 * Options: --sizes=10000,50000 (default), --100k adds 100000, --queries=50,
 * --systems=ours,langgraph,hnsw;
 * --bulk: the PostgreSQL stores' HNSW indexes are dropped while the items are
 *   put (through the stores' own batch()) and built after, with
 *   maintenance_work_mem 256MB (putPerSec then includes the build);
 * --parallel: each system of a size runs in its own child process at the
 *   same time (for a machine too loaded to run them one after another);
 * --from-log=FILE: no run; the target lines from the result lines a run
 *   printed (for a run stopped before its end).
 * Run: npm run bench:postgres → bench/results/postgres.json
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { exactTopK, lowRankUnitVectors, PrecomputedEmbeddings, recallAtK } from "./lib/vectors.js";
import { dirBytes, timeRuns } from "./lib/timing.js";

const DIMS = 512;
const K = 10;
const USER_ITEMS = 100;
const BATCH = 500;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const sizes = (args.get("sizes") ?? "10000,50000").split(",").map(Number).concat(args.has("100k") ? [100_000] : []);
const nQueries = Number(args.get("queries") ?? 50);
const systems = (args.get("systems") ?? "ours,langgraph,hnsw").split(",");
const bulk = args.has("bulk");
const parallel = args.has("parallel");

const userOf = (i: number) => (i < USER_ITEMS ? "u1" : `u${2 + (i % 999)}`);

interface Opened {
  store: BaseStore;
  close: () => Promise<void>;
  /** PGlite itself (PostgreSQL stores only). */
  db?: PGlite;
}

async function pglite(dir: string) {
  const db = await PGlite.create(dir, { extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
  await server.start();
  return { db, url: `postgres://postgres:postgres@${server.getServerConn()}/postgres`, stop: async () => (await server.stop(), await db.close()) };
}

function opener(system: string, dir: string, embeddings: PrecomputedEmbeddings): () => Promise<Opened> {
  const index = { dims: DIMS, embeddings, fields: ["text"] };
  if (system === "hnsw") {
    return async () => {
      const store = new HNSWStore({ path: dir, index, retrieval: "vector", embeddingCache: false });
      await store.open();
      return { store, close: () => store.close() };
    };
  }
  return async () => {
    const pg = await pglite(dir);
    if (system === "ours") {
      const store = new PostgresMemoryStore({ connectionString: pg.url, poolConfig: { max: 1 }, index, retrieval: "vector" });
      await store.setup();
      return { store, db: pg.db, close: async () => (await store.close(), await pg.stop()) };
    }
    const store = new PostgresStore({ connectionOptions: { connectionString: pg.url, max: 1 }, index: { dims: DIMS, embed: embeddings, fields: ["text"] } });
    await store.start();
    return { store, db: pg.db, close: async () => (await store.stop(), await pg.stop()) };
  }
}

async function runSystem(system: string, n: number, data: Float32Array, queries: Float32Array, exactAll: Int32Array[], exactUser: Int32Array[]) {
  const dir = await mkdtemp(join(os.tmpdir(), `bench-pg-${system}-`));
  const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
  const open = opener(system, dir, embeddings);
  const out: Record<string, unknown> = { system, n };
  try {
    let t = performance.now();
    let { store, close, db } = await open();
    out.setupMs = Math.round(performance.now() - t);
    t = performance.now();
    const hnswIndexes = bulk && db ? (await db.query<{ indexname: string; indexdef: string }>("SELECT indexname, indexdef FROM pg_indexes WHERE indexdef ILIKE '%using hnsw%'")).rows : [];
    for (const ix of hnswIndexes) await db!.exec(`DROP INDEX "${ix.indexname}"`);
    if (hnswIndexes.length) out.load = `bulk: ${hnswIndexes.map((ix) => ix.indexname).join(", ")} dropped during puts, built after (included)`;
    for (let s = 0; s < n; s += BATCH) {
      const ops = [];
      for (let i = s; i < Math.min(n, s + BATCH); i++) ops.push({ namespace: ["users", userOf(i)], key: `r${i}`, value: { text: `v:${i}` } });
      await store.batch(ops);
      if ((s / BATCH) % 20 === 0) process.stderr.write(`  ${system} ${n}: ${s + BATCH} put\r`);
    }
    if (hnswIndexes.length) {
      await db!.exec("SET maintenance_work_mem = '256MB'");
      for (const ix of hnswIndexes) await db!.exec(ix.indexdef);
      await db!.exec("RESET maintenance_work_mem");
    }
    const putMs = performance.now() - t;
    out.putPerSec = Math.round(n / (putMs / 1000));
    const search = async (prefix: string[], exact: Int32Array[]) => {
      const runs = await timeRuns(nQueries, (q) => store.search(prefix, { query: `q:${q}`, limit: K }), { warmup: Math.min(3, nQueries), from: 0 });
      const ids = runs.results.map((res) => res.map((r) => Number(r.key.slice(1))));
      const leaked = runs.results.flat().filter((r) => r.namespace.length < prefix.length || prefix.some((l, i) => r.namespace[i] !== l)).length;
      return { ...runs.lat, recall: Number(recallAtK(ids, exact).toFixed(4)), leaked };
    };
    out.searchAll = await search(["users"], exactAll);
    out.searchUser = await search(["users", "u1"], exactUser);
    await close();
    out.diskBytes = await dirBytes(dir);
    t = performance.now();
    ({ store, close } = await open());
    await store.search(["users"], { query: "q:0", limit: K });
    out.coldStartMs = Math.round(performance.now() - t);
    await close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(out));
  return out;
}

/** One system at one size, in this process (a --parallel child). */
async function child(system: string, n: number) {
  const data = lowRankUnitVectors(n, DIMS, 1);
  const queries = lowRankUnitVectors(nQueries, DIMS, 2);
  const out = await runSystem(system, n, data, queries, exactTopK(data, queries, DIMS, K, 0, n), exactTopK(data, queries, DIMS, K, 0, USER_ITEMS));
  console.log(`RESULT ${JSON.stringify(out)}`);
}

function runChild(system: string, n: number): Promise<unknown> {
  const argv = [...process.execArgv, process.argv[1], `--child=${system}`, `--n=${n}`, `--queries=${nQueries}`, ...(bulk ? ["--bulk"] : [])];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    proc.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    proc.on("error", reject);
    proc.on("exit", (code) => {
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      if (code !== 0 || !line) reject(new Error(`${system} ${n}: child exited ${code}\n${stdout}`));
      else resolve(JSON.parse(line.slice(7)));
    });
  });
}

async function main() {
  const results: unknown[] = [];
  if (parallel) {
    console.log(`bench:postgres sizes=${sizes.join(",")} queries=${nQueries} systems=${systems.join(",")} parallel${bulk ? " bulk" : ""} cpus=${os.cpus().length} load=${os.loadavg()[0].toFixed(1)}`);
    for (const n of sizes) results.push(...(await Promise.all(systems.map((system) => runChild(system, n)))));
    for (const r of results) console.log(JSON.stringify(r));
    return report(results);
  }
  console.log(`bench:postgres sizes=${sizes.join(",")} queries=${nQueries} systems=${systems.join(",")} cpus=${os.cpus().length} load=${os.loadavg()[0].toFixed(1)}`);
  for (const n of sizes) {
    const data = lowRankUnitVectors(n, DIMS, 1);
    const queries = lowRankUnitVectors(nQueries, DIMS, 2);
    const exactAll = exactTopK(data, queries, DIMS, K, 0, n);
    const exactUser = exactTopK(data, queries, DIMS, K, 0, USER_ITEMS);
    for (const system of systems) results.push(await runSystem(system, n, data, queries, exactAll, exactUser));
  }
  await report(results);
}

async function report(results: unknown[]) {
  const target = targetLines(results as Result[]);
  for (const line of target) console.log(line);
  await mkdir("bench/results", { recursive: true });
  await writeFile("bench/results/postgres.json", JSON.stringify({ at: new Date().toISOString(), loadavg: os.loadavg(), bulk, parallel, results, target }, null, 2));
}

interface Result {
  system: string;
  n: number;
  searchAll: { p50: number; recall: number; leaked: number };
  searchUser: { p50: number; recall: number; leaked: number };
}

/**
 * Issue 11's targets: at 50k, search p50 at least 10x faster than PostgresStore
 * with recall@10 >= 0.95; one user's search recall 1.0; no prefix leak.
 * Ratios at every measured size are printed too.
 */
function targetLines(results: Result[]): string[] {
  const lines: string[] = [];
  const at = (system: string, n: number) => results.find((r) => r.system === system && r.n === n);
  for (const n of sizes) {
    const ours = at("ours", n);
    const lg = at("langgraph", n);
    if (ours && lg) lines.push(`n=${n}: search all p50 ours ${ours.searchAll.p50} ms vs PostgresStore ${lg.searchAll.p50} ms = ${(lg.searchAll.p50 / ours.searchAll.p50).toFixed(1)}x; one user ${ours.searchUser.p50} vs ${lg.searchUser.p50} ms = ${(lg.searchUser.p50 / ours.searchUser.p50).toFixed(1)}x`);
  }
  const ours = at("ours", 50_000);
  const lg = at("langgraph", 50_000);
  if (!ours || !lg) {
    const part = ours ? ` (this store alone at 50k: search all p50 ${ours.searchAll.p50} ms, recall@10 ${ours.searchAll.recall}; one user ${ours.searchUser.p50} ms, recall ${ours.searchUser.recall}; PostgresStore not measured)` : "";
    lines.push(`issue-11 target (search p50 >= 10x faster than PostgresStore at 50k, recall@10 >= 0.95): NOT MEASURED${part} (run with --sizes including 50000 and --systems ours,langgraph)`);
    return lines;
  }
  const ratio = lg.searchAll.p50 / ours.searchAll.p50;
  const checks = [
    { ok: ratio >= 10, text: `search all p50 ${ours.searchAll.p50} ms vs PostgresStore ${lg.searchAll.p50} ms = ${ratio.toFixed(1)}x (target >= 10x)` },
    { ok: ours.searchAll.recall >= 0.95, text: `recall@10 ${ours.searchAll.recall} (target >= 0.95)` },
    { ok: ours.searchUser.recall === 1, text: `one-user recall ${ours.searchUser.recall} (target 1.0)` },
    { ok: ours.searchAll.leaked === 0 && ours.searchUser.leaked === 0, text: `items of other users returned: ${ours.searchAll.leaked + ours.searchUser.leaked} (target 0)` },
  ];
  const met = checks.every((c) => c.ok);
  lines.push(`issue-11 target at 50k: ${met ? "MET" : "MISSED"} — ${checks.map((c) => `${c.ok ? "ok" : "MISSED"}: ${c.text}`).join("; ")}`);
  return lines;
}

if (args.has("from-log")) {
  const text = await readFile(args.get("from-log")!, "utf8");
  const found = text.split("\n").filter((l) => l.startsWith("{") && l.includes('"system"')).map((l) => JSON.parse(l) as Result);
  for (const line of targetLines(found)) console.log(line);
} else if (args.has("child")) await child(args.get("child")!, Number(args.get("n")));
else await main();
