/**
 * Benchmark: HNSWStore vs InMemoryStore vs raw hnswlib-node on the same
 * random 512-d unit vectors.
 *
 * For each size N (10k and 100k; 1M with `--1m`, or any list with
 * `--sizes=10000,100000`) the parent process generates the vectors, 200
 * query vectors and the exact top-10 of each query (brute-force dot
 * products), then runs each system in its own child process, so that RSS
 * and timings are not mixed up:
 *   - HNSWStore, durability "fsync" (the default), `retrieval: "vector"`,
 *     `embeddingCache: false`: puts in batches of 1000, search, close
 *     (snapshot), cold open + first search, store search vs raw searchKnn on
 *     the store's own index file timed alternately (the overhead figure), and
 *     the default "hybrid" mode's search latency;
 *   - raw: `HierarchicalNSW` searchKnn on the index file the store wrote
 *     (same graph, M, efConstruction, ef), plus an ef sweep; its own addPoint
 *     build for put throughput only up to --raw-build-max (10k);
 *   - HNSWStore with durability "process" (puts + search; up to --process-max, 10k);
 *   - InMemoryStore (up to 100k; fewer queries at 100k, it scans in JS);
 *   - planner (in memory): a prefix covering all N items against the whole
 *     store, and one user's 100 items searched among 1k, 10k and 100k
 *     namespaces (the others hold one unindexed item each);
 *   - putraw (up to --putraw-max, 100k): HNSWStore puts (defaults, fsync)
 *     against raw addPoint on the same vectors, interleaved batch by batch,
 *     both growing to N; then the longest search latency while compact()
 *     rewrites the N-item snapshot (a search due every 2 ms).
 * Each target of issue 15 that a run measures is printed as MET or MISSED.
 * The stores get the vectors through {@link PrecomputedEmbeddings}
 * ("v:" + row 123 in letters a–m, "q:" + query 5 in letters n–z, see
 * idText), so no embedding cost is measured, and no query shares a word with
 * a document: the hybrid figures are the default mode's cost when BM25
 * finds nothing (with numeric ids, "q:5" matched "v:5" by keyword, noise
 * that cost recall).
 *
 * Layout: items 0..99 are one user's (["users","u1"]); the rest are spread
 * over ["users","u2".."u1000"]. The main search is over the whole store
 * (prefix []); the one-user search is over ["users","u1"] and must have
 * recall 1.0 (HNSWStore's planner scans those 100 items exactly).
 *
 * Options: --1m, --sizes=N,N, --queries=200, --systems=fsync,raw,process,memory,planner,putraw
 * (raw needs fsync's directory), --raw-build-max=10000, --process-max=10000, --putraw-max=100000,
 * --M= --efc= --ef= (override the store's HNSW defaults for both HNSWStore and raw).
 *
 * Run: npm run bench:store  → bench/results/store.json
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import hnswlib from "hnswlib-node";
import { InMemoryStore, type BaseStore, type Operation } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import type { HNSWStoreOptions } from "../src/store/hnsw/options.js";
import { exactTopK, idText, latency, loadMatrix, lowRankUnitVectors, PrecomputedEmbeddings, randomUnitVectors, recallAtK, row, saveMatrix } from "./lib/vectors.js";
import { cpuMs, dirBytes, interleave, interleaveMany, timeRuns, type Latency } from "./lib/timing.js";

const { HierarchicalNSW } = hnswlib;
const DIMS = 512;
const K = 10;
const USER_ITEMS = 100;
const BATCH = 1000;
const WARMUP = 10;
const SYSTEMS = ["fsync", "raw", "process", "memory", "planner", "putraw"] as const;
type System = (typeof SYSTEMS)[number];

interface HnswParams {
  M: number;
  efConstruction: number;
  efSearch: number;
}

interface WorkerJob {
  system: System;
  n: number;
  queries: number;
  dir: string;
  /** Explicit HNSW settings (raw always gets them; the stores only when overridden). */
  hnsw?: HnswParams;
  overridden: boolean;
  /** Raw hnswlib builds its own index (for put throughput) only up to this N. */
  rawBuildMax: number;
}

/** Put throughput against raw addPoint, and searches during a compaction (the "putraw" system). */
interface PutRawResult {
  store: { seconds: number; perSecond: number; cpuMs: number };
  raw: { seconds: number; perSecond: number; cpuMs: number };
  /** Store items/s ÷ raw items/s. */
  ratio: number;
  /** Compactions the store ran during the puts (by itself). */
  compactionsDuringPuts: number;
  compaction: { ms: number; searches: number; search: Latency; loopDelayMaxMs: number; loopDelayP99Ms: number };
}


interface SystemResult {
  system: string;
  n: number;
  /** Which vectors: uniform random (the worst case) or low-rank (embedding-like). */
  data?: DataKind;
  hnsw?: HnswParams;
  /** Undefined when not measured (raw hnswlib above `--raw-build-max`). */
  putSeconds?: number;
  putPerSecond?: number;
  search: Latency;
  recall: number;
  userSearch: Latency;
  userRecall: number;
  closeMs?: number;
  coldOpenMs?: number;
  diskBytes?: number;
  rssDeltaMB: number;
  rssMB: number;
  hybrid?: { search: Latency; recall: number; firstSearchMs: number; interleaved?: { store: Latency; raw: Latency; ratioP50: number; ratioCpu: number } };
  planner?: PlannerResult;
  /** Store search vs raw searchKnn on the store's own index, timed alternately in one process. */
  interleaved?: { store: Latency; raw: Latency; ratioP50: number; ratioMean: number; ratioCpu: number };
  efSweep?: { ef: number; recall: number; p50: number }[];
  putRaw?: PutRawResult;
}

const namespaceOf = (i: number): string[] => (i < USER_ITEMS ? ["users", "u1"] : ["users", `u${2 + (i % 999)}`]);
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const rssMB = () => mb(process.memoryUsage().rss);

// ---------------------------------------------------------------- workers

interface Data {
  data: Float32Array;
  queries: Float32Array;
  exact: Int32Array[];
  exactUser: Int32Array[];
}

async function loadData(dir: string): Promise<Data> {
  const truth = JSON.parse(await readFile(join(dir, "exact.json"), "utf8")) as { exact: number[][]; exactUser: number[][] };
  return {
    data: await loadMatrix(join(dir, "data.f32")),
    queries: await loadMatrix(join(dir, "queries.f32")),
    exact: truth.exact.map((a) => Int32Array.from(a)),
    exactUser: truth.exactUser.map((a) => Int32Array.from(a)),
  };
}

/**
 * Warms up on queries [0, WARMUP), then times queries [WARMUP, WARMUP + count)
 * one by one; returns the latencies and the ids each returned.
 */
async function timeQueries(count: number, run: (q: number) => Promise<number[]> | number[]): Promise<{ lat: Latency; ids: number[][] }> {
  const { lat, results } = await timeRuns(count, run, { warmup: WARMUP });
  return { lat, ids: results };
}

/** The store's current index file (`vectors-<gen>.hnsw`) in its directory. */
async function storeIndexFile(storeDir: string): Promise<string> {
  const name = (await readdir(storeDir)).find((f) => /^vectors-\d+\.hnsw$/.test(f));
  if (!name) throw new Error(`no vectors-*.hnsw in ${storeDir}; run the fsync system first`);
  return join(storeDir, name);
}

function loadRaw(file: string, h: HnswParams): InstanceType<typeof HierarchicalNSW> {
  const index = new HierarchicalNSW("cosine", DIMS);
  index.readIndexSync(file, false);
  index.setEf(h.efSearch);
  return index;
}

/**
 * Raw hnswlib-node. Put throughput: its own build with addPoint (only up to
 * `rawBuildMax` items, a 100k build takes minutes). Search, recall, cold
 * open, disk and RSS: the index file the fsync HNSWStore wrote, so both
 * search the very same graph with the same M / efConstruction / ef.
 */
async function runRaw(job: WorkerJob, d: Data): Promise<SystemResult> {
  const h = job.hnsw!;
  let putSeconds: number | undefined;
  if (job.n <= job.rawBuildMax) {
    const built = new HierarchicalNSW("cosine", DIMS);
    built.initIndex({ maxElements: job.n, m: h.M, efConstruction: h.efConstruction, randomSeed: 100 });
    const t = performance.now();
    for (let i = 0; i < job.n; i++) built.addPoint(row(d.data, DIMS, i), i);
    putSeconds = (performance.now() - t) / 1000;
  }
  const file = await storeIndexFile(join(job.dir, "store-fsync"));
  const base = process.memoryUsage().rss;
  const qs = Array.from({ length: job.queries + WARMUP }, (_, q) => row(d.queries, DIMS, q));
  let t = performance.now();
  const index = loadRaw(file, h);
  index.searchKnn(qs[WARMUP], K);
  const coldOpenMs = performance.now() - t;
  const main = await timeQueries(job.queries, (q) => index.searchKnn(qs[q], K).neighbors);
  // hnswlib's own filtered search, for comparison with the store's planner.
  const user = await timeQueries(job.queries, (q) => index.searchKnn(qs[q], K, (label) => label < USER_ITEMS).neighbors);
  const rss = process.memoryUsage().rss;
  // Recall / latency trade-off of ef on this graph.
  const efSweep: { ef: number; recall: number; p50: number }[] = [];
  for (const ef of [50, 100, 200, 400, 800, 1600, 3200]) {
    if (ef > job.n) break;
    index.setEf(ef);
    const r = await timeQueries(Math.min(job.queries, 100), (q) => index.searchKnn(qs[q], K).neighbors);
    efSweep.push({ ef, recall: recallAtK(r.ids, d.exact.slice(WARMUP)), p50: r.lat.p50 });
  }
  return {
    system: "raw hnswlib-node",
    n: job.n,
    hnsw: h,
    putSeconds,
    putPerSecond: putSeconds === undefined ? undefined : job.n / putSeconds,
    search: main.lat,
    recall: recallAtK(main.ids, d.exact.slice(WARMUP)),
    userSearch: user.lat,
    userRecall: recallAtK(user.ids, d.exactUser.slice(WARMUP)),
    coldOpenMs,
    diskBytes: (await stat(file)).size,
    rssDeltaMB: mb(rss - base),
    rssMB: mb(rss),
    efSweep,
  };
}

async function putAll(store: BaseStore, n: number): Promise<number> {
  const t = performance.now();
  for (let start = 0; start < n; start += BATCH) {
    const ops: Operation[] = [];
    for (let i = start; i < Math.min(n, start + BATCH); i++) ops.push({ namespace: namespaceOf(i), key: `k${i}`, value: { text: idText("v", i) } });
    await store.batch(ops);
  }
  return (performance.now() - t) / 1000;
}

const keyIds = (items: { key: string }[]) => items.map((it) => Number(it.key.slice(1)));

async function searchRuns(store: BaseStore, d: Data, queries: number) {
  const main = await timeQueries(queries, async (q) => keyIds(await store.search([], { query: idText("q", q), limit: K })));
  const user = await timeQueries(queries, async (q) => keyIds(await store.search(["users", "u1"], { query: idText("q", q), limit: K })));
  return {
    search: main.lat,
    recall: recallAtK(main.ids, d.exact.slice(WARMUP, WARMUP + queries)),
    userSearch: user.lat,
    userRecall: recallAtK(user.ids, d.exactUser.slice(WARMUP, WARMUP + queries)),
  };
}

async function runHnswStore(job: WorkerJob, d: Data): Promise<SystemResult> {
  const durability = job.system === "fsync" ? "fsync" : "process";
  const path = join(job.dir, `store-${durability}`);
  const embeddings = new PrecomputedEmbeddings(d.data, d.queries, DIMS);
  const options = (retrieval: "vector" | "hybrid"): HNSWStoreOptions => ({
    path,
    index: { dims: DIMS, embeddings, fields: ["text"] },
    retrieval,
    embeddingCache: false,
    durability,
    hnsw: job.overridden ? job.hnsw : undefined,
  });
  const base = process.memoryUsage().rss;
  let store = new HNSWStore(options("vector"));
  await store.open();
  const putSeconds = await putAll(store, job.n);
  const runs = await searchRuns(store, d, job.queries);
  const rss = process.memoryUsage().rss;
  let t = performance.now();
  await store.close();
  const closeMs = performance.now() - t;
  const diskBytes = await dirBytes(path);
  const manifest = JSON.parse(await readFile(join(path, "store.json"), "utf8")) as { index: HnswParams };
  const hnsw = { M: manifest.index.M, efConstruction: manifest.index.efConstruction, efSearch: manifest.index.efSearch };
  const result: SystemResult = {
    system: `HNSWStore (${durability})`,
    n: job.n,
    hnsw,
    putSeconds,
    putPerSecond: job.n / putSeconds,
    ...runs,
    closeMs,
    diskBytes,
    rssDeltaMB: mb(rss - base),
    rssMB: mb(rss),
  };
  if (job.system !== "fsync") return result;

  t = performance.now();
  store = new HNSWStore(options("vector"));
  await store.open();
  await store.search([], { query: idText("q", WARMUP), limit: K });
  result.coldOpenMs = performance.now() - t;
  // Overhead over raw searchKnn on the same graph, timed alternately so that
  // load from other processes hits both alike.
  const raw = loadRaw(await storeIndexFile(path), hnsw);
  const qs = Array.from({ length: job.queries + WARMUP }, (_, q) => row(d.queries, DIMS, q));
  const iv = await interleave(
    job.queries,
    WARMUP,
    (q) => store.search([], { query: idText("q", q), limit: K }),
    (q) => raw.searchKnn(qs[q], K),
  );
  result.interleaved = { store: iv.a, raw: iv.b, ratioP50: iv.ratioP50, ratioMean: iv.ratioMean, ratioCpu: iv.ratioCpu };
  await store.close();

  store = new HNSWStore(options("hybrid"));
  await store.open();
  t = performance.now();
  await store.search([], { query: "q:0", limit: K }); // builds the keyword index
  const firstSearchMs = performance.now() - t;
  const hybrid = await timeQueries(job.queries, async (q) => keyIds(await store.search([], { query: idText("q", q), limit: K })));
  // The default mode against raw searchKnn, timed alternately like the vector figure.
  const hv = await interleave(
    job.queries,
    WARMUP,
    (q) => store.search([], { query: idText("q", q), limit: K }),
    (q) => raw.searchKnn(qs[q], K),
  );
  result.hybrid = {
    search: hybrid.lat,
    recall: recallAtK(hybrid.ids, d.exact.slice(WARMUP)),
    firstSearchMs,
    interleaved: { store: hv.a, raw: hv.b, ratioP50: hv.ratioP50, ratioCpu: hv.ratioCpu },
  };
  await store.close();
  return result;
}

/** Search interval while a compaction runs. */
const COMPACTION_SEARCH_EVERY_MS = 2;

/**
 * Put throughput of HNSWStore (defaults: fsync, batches of 1000) against
 * raw `addPoint` into an hnswlib index with the same M / efConstruction,
 * on the same vectors, interleaved batch by batch so that load from other
 * processes hits both alike; both indexes grow to N together. Then, with
 * the N items in the store, `compact()` runs while a search is issued every
 * {@link COMPACTION_SEARCH_EVERY_MS} ms: each search's latency counts from
 * when it was due, so an event-loop block shows in full (a search is due
 * one interval after the previous one was issued).
 */
async function runPutRaw(job: WorkerJob, d: Data): Promise<SystemResult> {
  const h = job.hnsw!;
  const path = join(job.dir, "store-putraw");
  const embeddings = new PrecomputedEmbeddings(d.data, d.queries, DIMS);
  const store = new HNSWStore({ path, index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "vector", embeddingCache: false, hnsw: job.overridden ? h : undefined });
  await store.open();
  const raw = new HierarchicalNSW("cosine", DIMS);
  raw.initIndex({ maxElements: job.n, m: h.M, efConstruction: h.efConstruction, randomSeed: 100 });
  const generation = async () => (JSON.parse(await readFile(join(path, "store.json"), "utf8")) as { generation: number }).generation;
  const gen0 = await generation();
  const s = { seconds: 0, perSecond: 0, cpuMs: 0 };
  const r = { seconds: 0, perSecond: 0, cpuMs: 0 };
  for (let start = 0; start < job.n; start += BATCH) {
    const end = Math.min(job.n, start + BATCH);
    const ops: Operation[] = [];
    for (let i = start; i < end; i++) ops.push({ namespace: namespaceOf(i), key: `k${i}`, value: { text: idText("v", i) } });
    let c0 = cpuMs();
    let t0 = performance.now();
    await store.batch(ops);
    s.seconds += (performance.now() - t0) / 1000;
    s.cpuMs += cpuMs() - c0;
    const vectors = Array.from({ length: end - start }, (_, j) => row(d.data, DIMS, start + j));
    c0 = cpuMs();
    t0 = performance.now();
    for (let i = start; i < end; i++) raw.addPoint(vectors[i - start]!, i);
    r.seconds += (performance.now() - t0) / 1000;
    r.cpuMs += cpuMs() - c0;
    if ((start / BATCH) % 10 === 9) process.stdout.write(`\rputraw: ${end} of ${job.n} (store ${int(end / s.seconds)}/s, raw ${int(end / r.seconds)}/s)`);
  }
  process.stdout.write("\n");
  s.perSecond = job.n / s.seconds;
  r.perSecond = job.n / r.seconds;
  const compactionsDuringPuts = (await generation()) - gen0;

  // Searches every few ms while compact() rewrites the snapshot.
  for (let q = 0; q < WARMUP; q++) await store.search([], { query: idText("q", q), limit: K });
  const samples: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 5 });
  let done = false;
  let inFlight = 0;
  const t0 = performance.now();
  loop.enable();
  const compaction = store.compact().then(() => (done = true));
  let lastTick = performance.now() - COMPACTION_SEARCH_EVERY_MS;
  let q = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      if (done) {
        if (inFlight === 0) resolve();
        else setTimeout(tick, 1);
        return;
      }
      // Counted from when this search was due (the timer's own lateness, an
      // event-loop block, included), without a backlog of earlier ticks.
      const now = performance.now();
      const at = Math.min(now, lastTick + COMPACTION_SEARCH_EVERY_MS);
      lastTick = now;
      inFlight++;
      void store.search([], { query: idText("q", q++ % job.queries), limit: K }).then(() => {
        samples.push(performance.now() - at);
        inFlight--;
      });
      setTimeout(tick, COMPACTION_SEARCH_EVERY_MS);
    };
    tick();
  });
  await compaction;
  const compactMs = performance.now() - t0;
  loop.disable();
  await store.close();
  return {
    system: "HNSWStore put vs raw addPoint",
    n: job.n,
    hnsw: h,
    putSeconds: s.seconds,
    putPerSecond: s.perSecond,
    search: latency(samples),
    recall: 0,
    userSearch: latency(samples),
    userRecall: 0,
    rssDeltaMB: 0,
    rssMB: rssMB(),
    putRaw: {
      store: s,
      raw: r,
      ratio: s.perSecond / r.perSecond,
      compactionsDuringPuts,
      compaction: {
        ms: compactMs,
        searches: samples.length,
        search: latency(samples),
        loopDelayMaxMs: loop.max / 1e6,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
      },
    },
  };
}

async function runInMemory(job: WorkerJob, d: Data): Promise<SystemResult> {
  const embeddings = new PrecomputedEmbeddings(d.data, d.queries, DIMS);
  const base = process.memoryUsage().rss;
  const store = new InMemoryStore({ index: { dims: DIMS, embeddings, fields: ["text"] } });
  const putSeconds = await putAll(store, job.n);
  const queries = job.n >= 100_000 ? Math.min(job.queries, 50) : job.queries;
  const runs = await searchRuns(store, d, queries);
  const rss = process.memoryUsage().rss;
  return { system: "InMemoryStore", n: job.n, putSeconds, putPerSecond: job.n / putSeconds, ...runs, rssDeltaMB: mb(rss - base), rssMB: mb(rss) };
}

interface PlannerResult {
  /** All N items in one namespace: prefix ["shared"] (covers every item) vs [] (the whole store), interleaved. */
  shared: { whole: Latency; covering: Latency; ratioP50: number; ratioCpu: number };
  /** One user's 100 items among this many other namespaces (one unindexed item each). */
  oneUser: { namespaces: number; vector: Latency; hybrid: Latency }[];
}

/**
 * The planner's costs, in memory (durability is not under test):
 * a prefix that covers every item against the whole store, and one user's
 * search as the number of other namespaces grows from 1k to 100k. The other
 * namespaces hold one unindexed item each, so the HNSW graph (and the cost
 * of building it) stays the same and only the namespace count changes.
 */
async function runPlanner(job: WorkerJob, d: Data): Promise<SystemResult> {
  const embeddings = new PrecomputedEmbeddings(d.data, d.queries, DIMS);
  const options = (retrieval: "vector" | "hybrid"): HNSWStoreOptions => ({ index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval, embeddingCache: false });
  let store = new HNSWStore(options("vector"));
  for (let start = 0; start < job.n; start += BATCH) {
    const ops: Operation[] = [];
    for (let i = start; i < Math.min(job.n, start + BATCH); i++) ops.push({ namespace: ["shared"], key: `k${i}`, value: { text: idText("v", i) } });
    await store.batch(ops);
  }
  const shared = await interleave(
    job.queries,
    WARMUP,
    (q) => store.search([], { query: idText("q", q), limit: K }),
    (q) => store.search(["shared"], { query: idText("q", q), limit: K }),
  );
  await store.close();
  // One user's search among 1k, 10k and 100k namespaces: the three stores are
  // built first, then queried in turn, query by query, so that the machine's
  // state (other processes, the collector) falls on all three alike.
  const counts = [1_000, 10_000, 100_000];
  const rows = counts.map((namespaces) => ({ namespaces }) as PlannerResult["oneUser"][number]);
  for (const retrieval of ["vector", "hybrid"] as const) {
    const stores: HNSWStore[] = [];
    for (const namespaces of counts) {
      const s = new HNSWStore(options(retrieval));
      const user: Operation[] = [];
      for (let i = 0; i < USER_ITEMS; i++) user.push({ namespace: ["users", "u1"], key: `k${i}`, value: { text: idText("v", i) } });
      await s.batch(user);
      for (let start = 1; start < namespaces; start += BATCH) {
        const ops: Operation[] = [];
        for (let i = start; i < Math.min(namespaces, start + BATCH); i++) ops.push({ namespace: ["users", `o${i}`], key: "k", value: { text: idText("v", i) }, index: false });
        await s.batch(ops);
      }
      stores.push(s);
    }
    const timed = await interleaveMany(
      job.queries,
      WARMUP,
      stores.map((s) => (q: number) => s.search(["users", "u1"], { query: idText("q", q), limit: K })),
    );
    timed.forEach((t, i) => (rows[i]![retrieval] = t.lat));
    for (const s of stores) await s.close();
  }
  const oneUser = rows;
  return {
    system: "planner",
    n: job.n,
    search: shared.b,
    recall: 0,
    userSearch: oneUser[0]!.vector,
    userRecall: 0,
    rssDeltaMB: 0,
    rssMB: rssMB(),
    planner: { shared: { whole: shared.a, covering: shared.b, ratioP50: shared.b.p50 / shared.a.p50, ratioCpu: 1 / shared.ratioCpu }, oneUser },
  };
}

async function worker(job: WorkerJob): Promise<void> {
  const d = await loadData(job.dir);
  const result =
    job.system === "raw"
      ? await runRaw(job, d)
      : job.system === "memory"
        ? await runInMemory(job, d)
        : job.system === "planner"
          ? await runPlanner(job, d)
          : job.system === "putraw"
            ? await runPutRaw(job, d)
            : await runHnswStore(job, d);
  await writeFile(join(job.dir, `result-${job.system}.json`), JSON.stringify(result));
}

// ---------------------------------------------------------------- parent

type DataKind = "uniform" | "lowrank";
const DATA_KINDS: readonly DataKind[] = ["uniform", "lowrank"];

/** Data and query vectors of one kind (seeded: the same on every run). */
function makeVectors(kind: DataKind, n: number, queries: number): { data: Float32Array; queries: Float32Array } {
  if (kind === "uniform") return { data: randomUnitVectors(n, DIMS, 1), queries: randomUnitVectors(queries, DIMS, 2) };
  return { data: lowRankUnitVectors(n, DIMS, 1), queries: lowRankUnitVectors(queries, DIMS, 2) };
}

function parseArgs(argv: string[]) {
  const get = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const sizes = get("sizes")?.split(",").map(Number) ?? (argv.includes("--1m") ? [10_000, 100_000, 1_000_000] : [10_000, 100_000]);
  const systems = (get("systems")?.split(",") ?? [...SYSTEMS]) as System[];
  for (const s of systems) if (!SYSTEMS.includes(s)) throw new Error(`unknown system ${s}; use ${SYSTEMS.join(",")}`);
  const M = get("M");
  const efc = get("efc");
  const ef = get("ef");
  const data = (get("data")?.split(",") ?? [...DATA_KINDS]) as DataKind[];
  for (const d of data) if (!DATA_KINDS.includes(d)) throw new Error(`unknown --data ${d}; use ${DATA_KINDS.join(",")}`);
  return {
    sizes,
    data,
    systems,
    queries: Number(get("queries") ?? 200),
    rawBuildMax: Number(get("raw-build-max") ?? 10_000),
    processMax: Number(get("process-max") ?? 10_000),
    putRawMax: Number(get("putraw-max") ?? 100_000),
    override: M || efc || ef ? { M: Number(M ?? 16), efConstruction: Number(efc ?? 200), efSearch: Number(ef ?? 200) } : undefined,
  };
}

function runWorker(job: WorkerJob): Promise<SystemResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), `--worker=${JSON.stringify(job)}`], { stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", async (code) => {
      if (code !== 0) return reject(new Error(`${job.system} worker for N=${job.n} exited with ${code}`));
      resolve(JSON.parse(await readFile(join(job.dir, `result-${job.system}.json`), "utf8")) as SystemResult);
    });
  });
}

const f = (x: number | undefined, digits = 2) => (x === undefined ? "—" : x.toFixed(digits));
const int = (x: number | undefined) => (x === undefined ? "—" : Math.round(x).toLocaleString("en-US"));

function table(results: SystemResult[]): string {
  const head = "| vectors | N | system | put items/s | search p50 ms | p95 ms | recall@10 | one-user p50 ms | one-user recall | cold open ms | disk MB | RSS Δ MB |";
  const lines = [head, "|" + "---|".repeat(12)];
  for (const r of results) {
    if (r.planner || r.putRaw) continue;
    lines.push(
      `| ${r.data} | ${int(r.n)} | ${r.system} | ${int(r.putPerSecond)} | ${f(r.search.p50, 3)} | ${f(r.search.p95, 3)} | ${f(r.recall, 3)} | ${f(r.userSearch.p50, 3)} | ${f(r.userRecall, 3)} | ${f(r.coldOpenMs, 0)} | ${r.diskBytes === undefined ? "—" : f(mb(r.diskBytes), 1)} | ${f(r.rssDeltaMB, 0)} |`,
    );
    if (r.hybrid) {
      lines.push(`| ${r.data} | ${int(r.n)} | HNSWStore (hybrid search) | — | ${f(r.hybrid.search.p50, 3)} | ${f(r.hybrid.search.p95, 3)} | ${f(r.hybrid.recall, 3)} | — | — | — | — | — |`);
    }
  }
  return lines.join("\n");
}

interface Check {
  data?: DataKind;
  n: number;
  target: string;
  value: string;
  met: boolean;
}

function checks(results: SystemResult[]): Check[] {
  const out: Check[] = [];
  for (const key of new Set(results.map((r) => `${r.data} ${r.n}`))) {
    const [data, nText] = key.split(" ") as [DataKind, string];
    const n = Number(nText);
    const at = (s: string) => results.find((r) => r.n === n && r.data === data && r.system === s);
    const store = at("HNSWStore (fsync)") ?? at("HNSWStore (process)");
    const raw = at("raw hnswlib-node");
    const mem = at("InMemoryStore");
    const planner = at("planner")?.planner;
    const putRaw = at("HNSWStore put vs raw addPoint")?.putRaw;
    if (putRaw) {
      out.push({
        data,
        n,
        target: "put throughput ≥ 0.8× raw addPoint on the same data (interleaved, batches of 1000, fsync)",
        value: `${putRaw.ratio.toFixed(2)}× (${int(putRaw.store.perSecond)} vs ${int(putRaw.raw.perSecond)} items/s; CPU time ${(putRaw.raw.cpuMs / putRaw.store.cpuMs).toFixed(2)}×; ${putRaw.compactionsDuringPuts} compaction(s) during the puts)`,
        met: putRaw.ratio >= 0.8,
      });
      const c = putRaw.compaction;
      out.push({
        data,
        n,
        target: "compaction never blocks a search for more than 50 ms (max latency of searches issued every 2 ms during compact())",
        value: `max ${f(c.search.max, 1)} ms, p99 ${f(c.search.p99, 1)} ms over ${c.searches} searches; compact() ${f(c.ms, 0)} ms; event-loop delay max ${f(c.loopDelayMaxMs, 1)} ms`,
        met: c.search.max <= 50,
      });
    }
    if (planner) {
      const r = planner.shared.ratioP50;
      out.push({ data, n, target: `prefix covering ${int(n)} of ${int(n)} items ≤ 1.3× whole-store search (p50)`, value: `${r.toFixed(2)}× (${f(planner.shared.covering.p50, 3)} vs ${f(planner.shared.whole.p50, 3)} ms; CPU time ${planner.shared.ratioCpu.toFixed(2)}×)`, met: r <= 1.3 });
      for (const mode of ["vector", "hybrid"] as const) {
        const p50s = planner.oneUser.map((u) => u[mode].p50);
        const spread = Math.max(...p50s) / Math.min(...p50s);
        out.push({
          data,
          n,
          target: `one user's ${mode} search flat (±20%) from 1k to 100k namespaces (p50)`,
          value: planner.oneUser.map((u) => `${int(u.namespaces)}: ${f(u[mode].p50, 3)} ms`).join(", ") + ` (max/min ${spread.toFixed(2)})`,
          met: spread <= 1.2,
        });
      }
    }
    if (!store) continue;
    // The issue's speed and recall targets are set at 100k; smaller sizes are shown for reference.
    if (mem && n >= 100_000) {
      const speedup = mem.search.p50 / store.search.p50;
      out.push({ data, n, target: "search ≥ 50× faster than InMemoryStore (p50)", value: `${speedup.toFixed(0)}×`, met: speedup >= 50 });
    }
    if (n >= 100_000) out.push({ data, n, target: "recall@10 ≥ 0.95", value: store.recall.toFixed(3), met: store.recall >= 0.95 });
    const fsync = at("HNSWStore (fsync)");
    if (fsync?.interleaved) {
      const ratio = fsync.interleaved.ratioP50;
      out.push({ data, n, target: "vector-mode search ≤ 1.3× raw searchKnn (p50, same graph, interleaved)", value: `${ratio.toFixed(2)}× (CPU time ${fsync.interleaved.ratioCpu.toFixed(2)}×)`, met: ratio <= 1.3 });
    } else if (raw) {
      const ratio = store.search.p50 / raw.search.p50;
      out.push({ data, n, target: "vector-mode search ≤ 1.3× raw searchKnn (p50)", value: `${ratio.toFixed(2)}×`, met: ratio <= 1.3 });
    }
    if (fsync?.hybrid?.interleaved) {
      const ratio = fsync.hybrid.interleaved.ratioP50;
      out.push({ data, n, target: "default (hybrid) search ≤ 1.5× raw searchKnn (p50, same graph, interleaved)", value: `${ratio.toFixed(2)}× (CPU time ${fsync.hybrid.interleaved.ratioCpu.toFixed(2)}×)`, met: ratio <= 1.5 });
      if (raw) out.push({ data, n, target: "default (hybrid) recall@10 ≥ raw's", value: `${fsync.hybrid.recall.toFixed(3)} vs ${raw.recall.toFixed(3)}`, met: fsync.hybrid.recall >= raw.recall });
    }
    out.push({ data, n, target: "one-user (100 items) recall@10 = 1.0", value: store.userRecall.toFixed(3), met: store.userRecall === 1 });
  }
  return out;
}

async function main(): Promise<void> {
  const workerArg = process.argv.find((a) => a.startsWith("--worker="));
  if (workerArg) return worker(JSON.parse(workerArg.slice("--worker=".length)) as WorkerJob);

  const args = parseArgs(process.argv.slice(2));
  const machine = `${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()}`;
  console.log(`bench:store — ${machine}`);
  const results: SystemResult[] = [];
  const exactMs = new Map<number, number>();
  const started = performance.now();
  for (const kind of args.data) for (const n of args.sizes) {
    const dir = await mkdtemp(join(os.tmpdir(), `bench-store-${n}-`));
    try {
      let t = performance.now();
      const { data, queries } = makeVectors(kind, n, args.queries + WARMUP);
      const te = performance.now();
      const exact = exactTopK(data, queries, DIMS, K, 0, n);
      exactMs.set(n, (performance.now() - te) / (args.queries + WARMUP));
      const exactUser = exactTopK(data, queries, DIMS, K, 0, Math.min(n, USER_ITEMS));
      await saveMatrix(join(dir, "data.f32"), data);
      await saveMatrix(join(dir, "queries.f32"), queries);
      await writeFile(join(dir, "exact.json"), JSON.stringify({ exact: exact.map((a) => [...a]), exactUser: exactUser.map((a) => [...a]) }));
      console.log(`${kind} N=${n}: data + exact top-${K} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      let hnsw = args.override;
      for (const system of [...args.systems].sort((a, b) => SYSTEMS.indexOf(a) - SYSTEMS.indexOf(b))) {
        if (system === "process" && n > args.processMax) {
          console.log(`N=${n}: HNSWStore (process) skipped above --process-max=${args.processMax} (another full build; puts cost the same HNSW inserts)`);
          continue;
        }
        if (system === "memory" && n > 100_000) {
          console.log(`N=${n}: InMemoryStore skipped (it scores every vector in JS; too slow and too big at this size)`);
          continue;
        }
        // raw hnswlib gets the settings the store recorded (its defaults), unless overridden.
        if (system === "putraw" && n > args.putRawMax) {
          console.log(`N=${n}: put vs raw addPoint skipped above --putraw-max=${args.putRawMax}`);
          continue;
        }
        const job: WorkerJob = { system, n, queries: args.queries, dir, hnsw: hnsw ?? { M: 16, efConstruction: 200, efSearch: 200 }, overridden: !!args.override, rawBuildMax: args.rawBuildMax };
        t = performance.now();
        const r = await runWorker(job);
        hnsw ??= r.hnsw;
        results.push({ ...r, data: kind });
        console.log(`N=${n}: ${r.system} done in ${((performance.now() - t) / 1000).toFixed(1)} s (put ${int(r.putPerSecond)}/s, p50 ${r.search.p50} ms, recall ${r.recall.toFixed(3)})`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const extra: string[] = [];
  for (const r of results) {
    if (r.interleaved) {
      const { store, raw, ratioP50, ratioMean } = r.interleaved;
      extra.push(`${r.data} N=${int(r.n)} interleaved on the same graph: HNSWStore p50 ${f(store.p50, 3)} ms / raw searchKnn p50 ${f(raw.p50, 3)} ms = ${f(ratioP50)}× (mean ${f(ratioMean)}×)`);
    }
    if (r.hybrid) extra.push(`${r.data} N=${int(r.n)} hybrid: first search (builds the keyword index) ${f(r.hybrid.firstSearchMs, 0)} ms`);
    if (r.closeMs !== undefined) extra.push(`${r.data} N=${int(r.n)} ${r.system}: close (snapshot) ${f(r.closeMs, 0)} ms`);
    if (r.efSweep) extra.push(`${r.data} N=${int(r.n)} ef sweep (raw, same graph): ${r.efSweep.map((e) => `ef ${e.ef}: recall ${f(e.recall, 3)} p50 ${f(e.p50, 2)} ms`).join("; ")}`);
  }
  for (const [n, ms] of exactMs) extra.push(`N=${int(n)} exact top-${K} by brute force (Float32Array dot products in JS): ${f(ms, 1)} ms/query`);
  const out = table(results);
  const cs = checks(results);
  console.log(`\n${machine}\n\n${out}\n\n${extra.join("\n")}\n`);
  for (const c of cs) console.log(`${c.met ? "MET   " : "MISSED"} ${c.data} N=${int(c.n)} ${c.target}: ${c.value}`);
  console.log(`\ntotal ${((performance.now() - started) / 1000 / 60).toFixed(1)} min`);
  await mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await writeFile(
    new URL("./results/store.json", import.meta.url),
    JSON.stringify({ machine, date: new Date().toISOString(), dims: DIMS, k: K, queries: args.queries, results, exactMsPerQuery: Object.fromEntries(exactMs), checks: cs, table: out, notes: extra }, null, 2),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
