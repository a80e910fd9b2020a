/**
 * Benchmark: PostgresMemoryStore vs LangGraph's PostgresStore
 * (@langchain/langgraph-checkpoint-postgres) vs HNSWStore, on the same
 * embedding-like 512-d unit vectors (bench/lib/vectors.ts, low rank + noise),
 * on a real PostgreSQL server with pgvector: DATABASE_URL, or a throwaway
 * cluster this script starts itself (Debian's PostgreSQL + pgvector, see
 * test/helpers/pg-cluster.ts). Each PostgreSQL system gets a database of its
 * own per size. Vectors reach every store through PrecomputedEmbeddings, so
 * no embedding cost is measured. Default settings everywhere (ours: pool of
 * 8 for the 8-client run).
 *
 * Layout: items 0..99 belong to ["users","u1"]; the rest are spread over
 * ["users","u2".."u1000"] (so "u10", "u100" … exist next to "u1").
 * - put: batches of 500 items through each store's batch(), items/s until
 *   every vector is in the store's index (ours: after flushIndex(); the
 *   acknowledged rate beside it as ackedPutPerSec);
 * - search all: prefix ["users"] (PostgresStore refuses an empty prefix), k=10,
 *   recall@10 against the exact top-10 over all items;
 * - search one user: prefix ["users","u1"], recall against the exact top-10 of
 *   rows 0..99, and a leak check: every hit must be in ["users","u1"];
 * - 8 clients: 8 searches of all users in flight at once (queries/s);
 * - EXPLAIN of ours: the plan of both searches (index used);
 * - floor (bench/lib/pg-floor.ts): ours against raw pgvector on the same
 *   tables at the same ef_search, interleaved, per state: during a burst of
 *   --burst=2200 puts, after flushIndex(), after VACUUM, 8 clients, one user;
 *   --max-pending=N sets the store's hnsw.maxPendingVectors there (default:
 *   the store's own), --warmup=N the untimed searches per side before each
 *   settled state (default 1000).
 *
 * Options: --sizes=10000,50000,100000 (default), --queries=50,
 * --systems=ours,langgraph,hnsw,floor, --langgraph-max=50000 (PostgresStore is
 * skipped above it: its search scans every row);
 * --from-log=FILE: no run; the target lines from the result lines a run
 * printed (for a run stopped before its end).
 * Run: npm run bench:postgres → bench/results/postgres.json
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import pg from "pg";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { explainingPool } from "../test/helpers/explain-pool.js";
import { benchServer } from "./lib/pg-server.js";
import { exactTopK, lowRankUnitVectors, PrecomputedEmbeddings, recallAtK } from "./lib/vectors.js";
import { timeRuns } from "./lib/timing.js";
import { floorRun, type FloorState } from "./lib/pg-floor.js";

const DIMS = 512;
const K = 10;
const USER_ITEMS = 100;
const BATCH = 500;
const CLIENTS = 8;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const sizes = (args.get("sizes") ?? "10000,50000,100000").split(",").map(Number);
const nQueries = Number(args.get("queries") ?? 50);
const systems = (args.get("systems") ?? "ours,langgraph,hnsw,floor").split(",");
const burst = Number(args.get("burst") ?? 2200);
/** A whole number >= 0 given as --name=N, or undefined when not given. */
const countArg = (name: string): number | undefined => {
  if (!args.has(name)) return undefined;
  const v = Number(args.get(name));
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be a whole number >= 0, got ${args.get(name)}`);
  return v;
};
const maxPending = countArg("max-pending");
const warmup = countArg("warmup");
const langgraphMax = Number(args.get("langgraph-max") ?? 50_000);
const efSweep = (args.get("ef-sweep") ?? "100,200,300,400").split(",").filter(Boolean).map(Number);

const userOf = (i: number) => (i < USER_ITEMS ? "u1" : `u${2 + (i % 999)}`);

interface Opened {
  store: BaseStore;
  close: () => Promise<void>;
  explain?: (prefix: string[], q: number) => Promise<string>;
  /** All-users recall@10 and p50 at each `--ef-sweep` value of hnsw.efSearch. */
  sweep?: (exact: Int32Array[]) => Promise<{ efSearch: number; recall: number; p50: number }[]>;
  /** What autovacuum is doing in the store's database (`relation: phase`), sampled around the timings. */
  vacuuming?: () => Promise<string[]>;
}

async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(serverUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

async function open(system: string, serverUrl: string, n: number, embeddings: PrecomputedEmbeddings, dir: string): Promise<Opened> {
  const index = { dims: DIMS, embeddings, fields: ["text"] };
  if (system === "hnsw") {
    const store = new HNSWStore({ path: dir, index, retrieval: "vector", embeddingCache: false });
    await store.open();
    return { store, close: () => store.close() };
  }
  const db = `bench_${system}_${n}`;
  const url = await freshDatabase(serverUrl, db);
  if (system === "ours") {
    const store = new PostgresMemoryStore({ connectionString: url, poolConfig: { max: CLIENTS }, index, retrieval: "vector" });
    await store.setup();
    return {
      store,
      close: async () => (await store.close(), await dropDatabase(serverUrl, db)),
      vacuuming: async () => {
        const r = await store.connectionPool!.query<{ v: string }>(
          `SELECT relid::regclass || ': ' || phase AS v FROM pg_stat_progress_vacuum WHERE datname = current_database()`,
        );
        return r.rows.map((x) => x.v);
      },
      explain: async (prefix, q) => {
        // The same search through a second store on a pool that EXPLAINs each vector statement first.
        const { pool, plans } = explainingPool(url, 1);
        const probe = new PostgresMemoryStore({ pool, index, retrieval: "vector" });
        await probe.search(prefix, { query: `q:${q}`, limit: K });
        await probe.close();
        await pool.end();
        return plans.map((p) => p.plan).join("\n---\n");
      },
      sweep: async (exact) => {
        const out = [];
        for (const efSearch of efSweep) {
          const probe = new PostgresMemoryStore({ connectionString: url, poolConfig: { max: 1 }, index, retrieval: "vector", hnsw: { efSearch } });
          const runs = await timeRuns(nQueries, (q) => probe.search(["users"], { query: `q:${q}`, limit: K }), { warmup: Math.min(3, nQueries), from: 0 });
          await probe.close();
          out.push({ efSearch, recall: Number(recallAtK(runs.results.map((res) => res.map((r) => Number(r.key.slice(1)))), exact).toFixed(4)), p50: runs.lat.p50 });
        }
        return out;
      },
    };
  }
  const store = new PostgresStore({ connectionOptions: { connectionString: url, max: CLIENTS }, index: { dims: DIMS, embed: embeddings, fields: ["text"] } });
  await store.start();
  return { store, close: async () => (await store.stop(), await dropDatabase(serverUrl, db)) };
}

async function runSystem(system: string, serverUrl: string, n: number, data: Float32Array, queries: Float32Array, exactAll: Int32Array[], exactUser: Int32Array[]) {
  const dir = await mkdtemp(join(os.tmpdir(), `bench-pg-${system}-`));
  const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
  const out: Record<string, unknown> = { system, n };
  const { store, close, explain, sweep, vacuuming } = await open(system, serverUrl, n, embeddings, dir);
  try {
    const t = performance.now();
    for (let s = 0; s < n; s += BATCH) {
      const ops = [];
      for (let i = s; i < Math.min(n, s + BATCH); i++) ops.push({ namespace: ["users", userOf(i)], key: `r${i}`, value: { text: `v:${i}` } });
      await store.batch(ops);
      if ((s / BATCH) % 20 === 0) process.stderr.write(`  ${system} ${n}: ${s + BATCH} put\r`);
    }
    // Acknowledged, then indexed: ours moves new vectors into the HNSW index in the background
    // (hnsw.deferredIndexing), so put/s counts until every vector is in the index.
    out.ackedPutPerSec = Math.round(n / ((performance.now() - t) / 1000));
    if (store instanceof PostgresMemoryStore) await store.flushIndex();
    out.putPerSec = Math.round(n / ((performance.now() - t) / 1000));
    const search = async (prefix: string[], exact: Int32Array[]) => {
      const runs = await timeRuns(nQueries, (q) => store.search(prefix, { query: `q:${q}`, limit: K }), { warmup: Math.min(3, nQueries), from: 0 });
      const ids = runs.results.map((res) => res.map((r) => Number(r.key.slice(1))));
      const leaked = runs.results.flat().filter((r) => r.namespace.length < prefix.length || prefix.some((l, i) => r.namespace[i] !== l)).length;
      return { ...runs.lat, recall: Number(recallAtK(ids, exact).toFixed(4)), leaked };
    };
    // A fresh table's autovacuum (pgvector's HNSW vacuum reads the whole index) competes for the CPU.
    const vacuum: Record<string, string[]> = {};
    if (vacuuming) vacuum.beforeSearches = await vacuuming();
    out.searchAll = await search(["users"], exactAll);
    out.searchUser = await search(["users", "u1"], exactUser);
    if (vacuuming) (vacuum.afterSearches = await vacuuming()), (out.autovacuum = vacuum);
    // 8 clients: 8 searches in flight at once, 4 rounds of all the queries.
    let next = 0;
    const total = nQueries * 4;
    const t8 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < total) await store.search(["users"], { query: `q:${next++ % nQueries}`, limit: K });
      }),
    );
    out.clients8PerSec = Math.round(total / ((performance.now() - t8) / 1000));
    if (explain) out.plans = { all: await explain(["users"], 0), user: await explain(["users", "u1"], 0) };
    if (sweep) out.efSweep = await sweep(exactAll);
  } finally {
    await close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(out));
  return out as unknown as Result;
}

async function main() {
  const { url: serverUrl, stop } = await benchServer("bench:postgres");
  const version = await (async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    const v = (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
    await c.end();
    return v;
  })();
  const results: Result[] = [];
  const floors: Record<string, unknown>[] = [];
  try {
    console.log(`bench:postgres PostgreSQL ${version} sizes=${sizes.join(",")} queries=${nQueries} systems=${systems.join(",")} cpus=${os.cpus().length} load=${os.loadavg()[0].toFixed(1)} at=${new Date().toISOString()}`);
    for (const n of sizes) {
      const data = lowRankUnitVectors(n, DIMS, 1);
      const queries = lowRankUnitVectors(nQueries, DIMS, 2);
      const exactAll = exactTopK(data, queries, DIMS, K, 0, n);
      const exactUser = exactTopK(data, queries, DIMS, K, 0, USER_ITEMS);
      for (const system of systems) {
        if (system === "langgraph" && n > langgraphMax) continue;
        if (system === "floor") {
          floors.push(await runFloor(serverUrl, n));
          continue;
        }
        results.push(await runSystem(system, serverUrl, n, data, queries, exactAll, exactUser));
      }
    }
  } finally {
    stop?.();
  }
  const target = [...targetLines(results), ...floorLines(floors)];
  for (const line of target) console.log(line);
  await mkdir("bench/results", { recursive: true });
  await writeFile("bench/results/postgres.json", JSON.stringify({ at: new Date().toISOString(), postgres: version, loadavg: os.loadavg(), results, floors, target }, null, 2));
}

/** The "floor" system: ours against raw pgvector on the same tables, per state (bench/lib/pg-floor.ts). */
async function runFloor(serverUrl: string, n: number): Promise<Record<string, unknown>> {
  const db = `bench_floor_${n}`;
  const url = await freshDatabase(serverUrl, db);
  try {
    const started = { at: new Date().toISOString(), load: os.loadavg()[0] };
    const states = await floorRun({
      url,
      n,
      dims: DIMS,
      queries: nQueries,
      burst,
      maxPending,
      warmup,
      data: lowRankUnitVectors(n + burst, DIMS, 1),
      queryVectors: lowRankUnitVectors(nQueries, DIMS, 2),
      userOf,
      userItems: USER_ITEMS,
      clients: CLIENTS,
      loadavg: () => os.loadavg()[0],
    });
    const out = { system: "floor", n, ...(maxPending === undefined ? {} : { maxPending }), ...started, ...states };
    console.log(JSON.stringify(out));
    return out;
  } finally {
    await dropDatabase(serverUrl, db);
  }
}

/** Issue 36's targets for each floor run: ours / raw per state. */
function floorLines(floors: Record<string, unknown>[]): string[] {
  const lines: string[] = [];
  if (floors.length === 0) return lines;
  lines.push("| n | ef_search | state | ours p50 ms | raw p50 ms | ours / raw | ours recall | raw recall | server CPU ms/q ours / raw | node CPU ms/q ours / raw | load |");
  lines.push("|---|---|---|---|---|---|---|---|---|---|---|");
  const limits: Record<string, [string, number, "max" | "min"]> = {
    burst: ["during a burst of puts", 1.5, "max"],
    flush: ["after flushIndex()", 1.2, "max"],
    vacuum: ["after VACUUM", 1.15, "max"],
    oneUser: ["one user", 1.5, "max"],
    clients8: ["8 clients (q/s)", 0.85, "min"],
  };
  for (const f of floors) {
    for (const [key, [name, limit, kind]] of Object.entries(limits)) {
      const st = f[key] as FloorState | undefined;
      if (!st) continue;
      const cpu = (a?: number, b?: number) => (a === undefined || b === undefined ? "" : `${a} / ${b}`);
      lines.push(`| ${f.n} | ${f.efSearch} | ${name} | ${st.ours.p50} | ${st.raw.p50} | ${st.ratio} | ${st.ours.recall} | ${st.raw.recall} | ${cpu(st.ours.serverCpu, st.raw.serverCpu)} | ${cpu(st.ours.nodeCpu, st.raw.nodeCpu)} | ${st.load} |`);
    }
  }
  for (const f of floors) {
    for (const [key, [name, limit, kind]] of Object.entries(limits)) {
      const st = f[key] as FloorState | undefined;
      if (!st) continue;
      const ok = kind === "max" ? st.ratio <= limit : st.ratio >= limit;
      lines.push(`target ${name} at ${f.n} ${kind === "max" ? "<=" : ">="} ${limit}x raw: ${ok ? "MET" : "MISSED"} — ${st.ratio}x (load ${st.load})`);
    }
    const v = f.vacuum as FloorState | undefined;
    if (v) lines.push(`target recall@10 >= 0.98 at ${f.n} (ef_search ${f.efSearch}): ${v.ours.recall >= 0.98 ? "MET" : "MISSED"} — ${v.ours.recall}`);
  }
  return lines;
}

interface Result {
  system: string;
  n: number;
  putPerSec: number;
  /** Items/s until the last batch was acknowledged (ours: before its pending vectors were indexed). */
  ackedPutPerSec?: number;
  clients8PerSec: number;
  searchAll: { p50: number; recall: number; leaked: number };
  searchUser: { p50: number; recall: number; leaked: number };
}

/** Issue 23's targets, each MET / MISSED / NOT MEASURED, and the table the docs show. */
function targetLines(results: Result[]): string[] {
  const at = (system: string, n: number) => results.find((r) => r.system === system && r.n === n);
  const lines: string[] = [];
  const measured = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  lines.push("| n | system | put/s (indexed) | put/s (acknowledged) | all users p50 ms | recall@10 | one user p50 ms | one-user recall | 8 clients q/s |");
  lines.push("|---|---|---|---|---|---|---|---|---|");
  for (const n of measured) {
    for (const s of ["ours", "hnsw", "langgraph"]) {
      const r = at(s, n);
      if (r) lines.push(`| ${n} | ${s} | ${r.putPerSec} | ${r.ackedPutPerSec ?? r.putPerSec} | ${r.searchAll.p50} | ${r.searchAll.recall} | ${r.searchUser.p50} | ${r.searchUser.recall} | ${r.clients8PerSec} |`);
    }
  }
  const check = (name: string, ok: boolean | undefined, text: string) => lines.push(`target ${name}: ${ok === undefined ? "NOT MEASURED" : ok ? "MET" : "MISSED"} — ${text}`);
  const o50 = at("ours", 50_000);
  const l50 = at("langgraph", 50_000);
  check("all-users search >= 10x PostgresStore at 50k", o50 && l50 ? l50.searchAll.p50 / o50.searchAll.p50 >= 10 : undefined, o50 && l50 ? `${o50.searchAll.p50} vs ${l50.searchAll.p50} ms = ${(l50.searchAll.p50 / o50.searchAll.p50).toFixed(1)}x` : "needs ours and langgraph at 50000");
  const o100 = at("ours", 100_000);
  check("recall@10 >= 0.98 at 100k", o100 ? o100.searchAll.recall >= 0.98 : undefined, o100 ? `${o100.searchAll.recall}` : "needs ours at 100000");
  const o10 = at("ours", 10_000);
  check(
    "one user's search flat 10k -> 100k (±25%)",
    o10 && o100 ? Math.abs(o100.searchUser.p50 / o10.searchUser.p50 - 1) <= 0.25 : undefined,
    o10 && o100 ? `${o10.searchUser.p50} -> ${o100.searchUser.p50} ms (${((o100.searchUser.p50 / o10.searchUser.p50 - 1) * 100).toFixed(0)}%)` : "needs ours at 10000 and 100000",
  );
  for (const n of measured) {
    const o = at("ours", n);
    const h = at("hnsw", n);
    if (!o || !h) continue;
    check(`one user's search within 5x of HNSWStore at ${n}`, o.searchUser.p50 <= 5 * h.searchUser.p50, `${o.searchUser.p50} vs ${h.searchUser.p50} ms = ${(o.searchUser.p50 / h.searchUser.p50).toFixed(1)}x`);
    check(`puts >= 0.6x HNSWStore at ${n}`, o.putPerSec >= 0.6 * h.putPerSec, `${o.putPerSec} vs ${h.putPerSec} items/s indexed = ${(o.putPerSec / h.putPerSec).toFixed(2)}x (acknowledged: ${o.ackedPutPerSec ?? o.putPerSec}/s)`);
    const lg = at("langgraph", n);
    lines.push(`8 clients at ${n}: ours ${o.clients8PerSec} q/s, HNSWStore ${h.clients8PerSec} q/s${lg ? `, PostgresStore ${lg.clients8PerSec} q/s` : ""}`);
  }
  const leaks = results.filter((r) => r.system !== "langgraph").reduce((a, r) => a + r.searchAll.leaked + r.searchUser.leaked, 0);
  check("no item of another user returned (ours, HNSWStore)", leaks === 0, `${leaks} leaked`);
  return lines;
}

if (args.has("from-log")) {
  const text = await readFile(args.get("from-log")!, "utf8");
  const found = text.split("\n").filter((l) => l.startsWith("{") && l.includes('"system"')).map((l) => JSON.parse(l) as Result);
  for (const line of targetLines(found)) console.log(line);
} else await main();
