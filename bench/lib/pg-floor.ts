import { readFileSync } from "node:fs";
import pg from "pg";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { fittedEfSearch } from "../../src/store/postgres/fitted-ef.js";
import { vectorParam } from "../../src/store/postgres/sql.js";
import { exactTopK, latency, PrecomputedEmbeddings, recallAtK, row } from "./vectors.js";

/**
 * PostgresMemoryStore against its floor: raw pgvector on the store's own
 * tables at the same `hnsw.ef_search` (nothing can be faster than the index
 * it uses), queries interleaved one by one in one run, in each state a
 * store goes through:
 *
 * - burst: while a writer puts `burst` new items (their vectors pending,
 *   the store's workers moving them into the index);
 * - flush: right after `flushIndex()` (ours vacuums the drained pending table);
 * - vacuum: after `VACUUM ANALYZE` of every table;
 * - 8 clients: 8 searches in flight at once, queries/s: both pools warmed
 *   first (every connection open and prepared), then 4 rounds of 200
 *   searches per side, ours and raw alternating round by round;
 * - one user: prefix ["users","u1"] (100 items) against raw
 *   `WHERE ns = … ORDER BY embedding <=> q LIMIT 10`;
 * - flush, VACUUM and one user: 200 searches per side (at least --queries).
 *
 * Raw all-users: `SELECT key FROM <prefix>vectors ORDER BY embedding <=> q
 * LIMIT 10` on connections of its own with the same ef_search.
 *
 * Besides latency, each side's CPU per query: the server's (utime + stime of
 * that side's backends over the whole state, from /proc, when the server runs
 * on this machine; the store's include anything its own connections did
 * meanwhile) and this process's (process.cpuUsage around that side's calls). CPU time
 * does not stretch with the machine's load as latency does, so on a shared
 * machine it says where the time goes. During the burst the store's
 * backends also run the workers' HNSW inserts, so no server CPU is given there.
 */
export interface FloorSide {
  p50: number;
  mean: number;
  recall: number;
  /** Server CPU ms per query (undefined: not measurable here). */
  serverCpu?: number;
  /** This process's CPU ms per query. */
  nodeCpu?: number;
}
export interface FloorState {
  ours: FloorSide;
  raw: FloorSide;
  /** ours p50 / raw p50 (8 clients: ours q/s / raw q/s). */
  ratio: number;
  /** 1-minute load average when the state was measured. */
  load: number;
  /** Queries timed on each side. */
  queries: number;
}

const K = 10;
/** The 8-client state: rounds per side, searches per round (the sides alternate round by round). */
const CLIENT_ROUNDS = 4;
const CLIENT_QUERIES = 200;
/** Searches per side after flush, after VACUUM and for one user (at least --queries). */
const SETTLED_QUERIES = 200;
/**
 * Untimed searches per side before a settled state is timed (the burst: 3, it is over in seconds).
 * A state can be the first to run a plan (one user's exact ranking comes after three states of index
 * walks), and V8 optimises a path only after it has run many times: with 3, a first run of the
 * one-user state in a process measured 1.78× raw where four later runs of it measured 1.51–1.56×
 * (2026-12-07, load 3). Both sides warm alike. 100 was still not enough: V8 goes on optimising a
 * path for thousands of runs (one user's search, this process's CPU per search, the store's side
 * and raw's, the mean of the next 200: 0.75–0.84 and 0.33–0.38 ms after 100 untimed searches, 0.44
 * and 0.22–0.30 after 1,000; of the next 4,000 after 2,000: 0.23–0.28 and 0.13–0.17; 2026-12-07, 2
 * cores, load 1–2), and a process that serves searches all day runs the optimised code. 1,000
 * costs a few seconds per state.
 */
const WARMUP = 1000;
const RAW_APP = "pg-floor-raw";
const OURS_APP = "pg-floor-ours";

/**
 * CPU ms each of the server's backends named `app` has used so far, by pid (Linux /proc, a server
 * on this machine; undefined otherwise). A backend that ends before it is read is left out.
 */
async function serverCpuMs(db: pg.Pool, app: string): Promise<Map<number, number> | undefined> {
  const pids = (await db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [app])).rows.map((r) => r.pid);
  const out = new Map<number, number>();
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile (or no such process here)
    }
    const f = stat.split(") ")[1]!.split(" ");
    out.set(pid, (Number(f[11]) + Number(f[12])) * 10); // USER_HZ is 100 on Linux
  }
  // None of them readable: no /proc, or the server runs on another machine.
  return pids.length > 0 && out.size === 0 ? undefined : out;
}

/**
 * CPU ms the backends used between two readings: each backend's growth, a backend that started
 * meanwhile counted whole. A backend that ended meanwhile (the pool closes idle connections after
 * 30 s) is left out: summing totals instead made such a state's figure negative.
 */
function cpuBetween(before: Map<number, number> | undefined, after: Map<number, number> | undefined): number | undefined {
  if (!before || !after) return undefined;
  let ms = 0;
  for (const [pid, used] of after) ms += used - (before.get(pid) ?? 0);
  return ms;
}

export async function floorRun(options: {
  url: string;
  n: number;
  dims: number;
  queries: number;
  burst: number;
  /** The store's hnsw.maxPendingVectors (default: the store's own). */
  maxPending?: number;
  /** Untimed searches per side before each settled state (default WARMUP). */
  warmup?: number;
  data: Float32Array;
  queryVectors: Float32Array;
  userOf: (i: number) => string;
  userItems: number;
  clients: number;
  loadavg: () => number;
}): Promise<Record<string, FloorState | number>> {
  const { url, n, dims, queries, burst, data, queryVectors, userOf } = options;
  const embeddings = new PrecomputedEmbeddings(data, queryVectors, dims);
  const store = new PostgresMemoryStore({ connectionString: url, poolConfig: { max: options.clients, application_name: OURS_APP }, index: { dims, embeddings, fields: ["text"] }, retrieval: "vector", ...(options.maxPending === undefined ? {} : { hnsw: { maxPendingVectors: options.maxPending } }) });
  const ef = fittedEfSearch(n);
  // The same driver and pool size as the store's; ef_search as a startup option of each connection
  // (a SET sent on 'connect' raced the pool's first query on that connection).
  const raw = new pg.Pool({ connectionString: url, max: options.clients, options: `-c hnsw.ef_search=${ef}`, application_name: RAW_APP });
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  // The server ending an idle connection when the bench stops it is no failure of the run.
  for (const p of [raw, admin]) p.on("error", () => {});
  const apps = [OURS_APP, RAW_APP];
  const put = async (from: number, to: number, batch: number) => {
    for (let s = from; s < to; s += batch) {
      const ops = [];
      for (let i = s; i < Math.min(to, s + batch); i++) ops.push({ namespace: ["users", userOf(i)], key: `r${i}`, value: { text: `v:${i}` } });
      await store.batch(ops);
    }
  };
  const out: Record<string, FloorState | number> = { efSearch: ef, warmup: options.warmup ?? WARMUP };
  try {
    await put(0, n, 500);
    await store.flushIndex();
    await raw.query("VACUUM ANALYZE memory_items, memory_vectors, memory_pending_vectors");
    const qs = Array.from({ length: queries }, (_, q) => vectorParam(row(queryVectors, dims, q)));
    const exactAll = (upTo: number) => exactTopK(data.subarray(0, upTo * dims), queryVectors, dims, K, 0, upTo);
    const exactUser = exactTopK(data, queryVectors, dims, K, 0, options.userItems);
    const ours = (prefix: string[]) => async (q: number) => (await store.search(prefix, { query: `q:${q % queries}`, limit: K })).map((r) => Number(r.key.slice(1)));
    const rawAll = async (q: number) => (await raw.query<{ key: string }>(`SELECT key FROM memory_vectors ORDER BY embedding <=> $1::vector LIMIT ${K}`, [qs[q % queries]])).rows.map((r) => Number(r.key.slice(1)));
    const rawUser = async (q: number) =>
      (await raw.query<{ key: string }>(`SELECT key FROM memory_vectors WHERE ns = 'users.u1' ORDER BY embedding <=> $1::vector LIMIT ${K}`, [qs[q % queries]])).rows.map((r) => Number(r.key.slice(1)));
    /**
     * Both sides alternately, query by query (WARMUP untimed first; which side goes first alternates
     * too), for `count` queries or while `until()` holds. Each side's server CPU is read from /proc once
     * before and once after the state (each side's backends do only that side's work), not around
     * every search: a statement and two /proc reads between every pair of searches cooled the
     * caches each search started with, and slowed the side with more code the more.
     */
    const state = async (a: (q: number) => Promise<number[]>, b: (q: number) => Promise<number[]>, exact: Int32Array[], count = queries, until?: () => boolean, serverCpu = true, warmup = options.warmup ?? WARMUP): Promise<FloorState> => {
      const sides = [a, b];
      const samples: number[][] = [[], []];
      const got: { ids: number[]; q: number }[][] = [[], []];
      const node = [0, 0];
      let before: (Map<number, number> | undefined)[] = [undefined, undefined];
      for (let q = 0; q < count + warmup && (!until || until()); q++) {
        if (q === warmup && serverCpu) before = [await serverCpuMs(admin, apps[0]!), await serverCpuMs(admin, apps[1]!)];
        // The side that goes first alternates query by query: after a burst the first reader of a
        // new row also sets its hint bits (and dirties its page), which the other side then skips.
        for (const s of q % 2 === 0 ? [0, 1] : [1, 0]) {
          const c = process.cpuUsage();
          const t = performance.now();
          const ids = await sides[s]!(q);
          const ms = performance.now() - t;
          const used = process.cpuUsage(c);
          if (q < warmup) continue;
          samples[s]!.push(ms), got[s]!.push({ ids, q: q % queries });
          node[s]! += (used.user + used.system) / 1000;
        }
      }
      const after = serverCpu ? [await serverCpuMs(admin, apps[0]!), await serverCpuMs(admin, apps[1]!)] : [undefined, undefined];
      const side = (s: number): FloorSide => {
        const l = latency(samples[s]!);
        const n = samples[s]!.length;
        const server = cpuBetween(before[s], after[s]);
        return {
          p50: l.p50,
          mean: l.mean,
          recall: Number(recallAtK(got[s]!.map((g) => g.ids), got[s]!.map((g) => exact[g.q]!)).toFixed(4)),
          serverCpu: server === undefined ? undefined : Number((server / n).toFixed(3)),
          nodeCpu: Number((node[s]! / n).toFixed(3)),
        };
      };
      const x = side(0);
      const y = side(1);
      return { ours: x, raw: y, ratio: Number((x.p50 / y.p50).toFixed(3)), load: Number(options.loadavg().toFixed(2)), queries: samples[0]!.length };
    };
    // During a burst: the writer runs while both sides alternate (recall against the items before the burst).
    let writing = true;
    const burstStart = performance.now();
    let acked = 0;
    const writer = put(n, n + burst, 100).finally(() => ((writing = false), (acked = performance.now() - burstStart)));
    out.burst = await state(ours(["users"]), rawAll, exactAll(n), Number.POSITIVE_INFINITY, () => writing, false, 3);
    await writer;
    await store.flushIndex();
    // The burst's puts per second, acknowledged (the writer's last batch returned) and indexed (flushIndex() resolved).
    out.burstAckedPerSec = Math.round(burst / (acked / 1000));
    out.burstIndexedPerSec = Math.round(burst / ((performance.now() - burstStart) / 1000));
    const all = exactAll(n + burst);
    // Each settled state 200 searches a side (4 per query at 50 queries): with 50, the p50 ratio of
    // one run moved by ±0.2 from run to run on a quiet machine.
    out.flush = await state(ours(["users"]), rawAll, all, Math.max(queries, SETTLED_QUERIES));
    await raw.query("VACUUM ANALYZE memory_items, memory_vectors, memory_pending_vectors");
    out.vacuum = await state(ours(["users"]), rawAll, all, Math.max(queries, SETTLED_QUERIES));
    out.oneUser = await state(ours(["users", "u1"]), rawUser, exactUser, Math.max(queries, SETTLED_QUERIES));
    // 8 clients: alternate rounds of `clients` searches in flight, ours then raw.
    const cpu = [
      { node: 0, server: 0 as number | undefined },
      { node: 0, server: 0 as number | undefined },
    ];
    const inFlight = (count: number, f: (q: number) => Promise<unknown>) => {
      let next = 0;
      return Promise.all(Array.from({ length: options.clients }, async () => { while (next < count) await f(next++); }));
    };
    const rate = async (s: number, f: (q: number) => Promise<unknown>) => {
      const before = await serverCpuMs(admin, apps[s]!);
      const c = process.cpuUsage();
      const t = performance.now();
      await inFlight(CLIENT_QUERIES, f);
      const wall = performance.now() - t;
      const used = process.cpuUsage(c);
      const after = await serverCpuMs(admin, apps[s]!);
      cpu[s]!.node += (used.user + used.system) / 1000;
      const used2 = cpuBetween(before, after);
      cpu[s]!.server = used2 === undefined || cpu[s]!.server === undefined ? undefined : cpu[s]!.server! + used2;
      return CLIENT_QUERIES / (wall / 1000);
    };
    // Both pools warm first: every connection open, with its settings and prepared statements (the
    // one-user and single-client states ran on one or two of them), then rounds long enough to be
    // stable, the sides alternating.
    const sides8 = [ours(["users"]), rawAll];
    for (let s = 0; s < 2; s++) await inFlight(options.clients * 8, sides8[s]!);
    const rates: [number, number] = [0, 0];
    for (let round = 0; round < CLIENT_ROUNDS; round++) {
      for (let s = 0; s < 2; s++) rates[s] += await rate(s, sides8[s]!);
    }
    const perQuery = (s: number) => ({
      serverCpu: cpu[s]!.server === undefined ? undefined : Number((cpu[s]!.server! / (CLIENT_QUERIES * CLIENT_ROUNDS)).toFixed(3)),
      nodeCpu: Number((cpu[s]!.node / (CLIENT_QUERIES * CLIENT_ROUNDS)).toFixed(3)),
    });
    out.clients8 = {
      ours: { p50: Math.round(rates[0] / CLIENT_ROUNDS), mean: 0, recall: NaN, ...perQuery(0) },
      raw: { p50: Math.round(rates[1] / CLIENT_ROUNDS), mean: 0, recall: NaN, ...perQuery(1) },
      ratio: Number((rates[0] / rates[1]).toFixed(3)),
      load: Number(options.loadavg().toFixed(2)),
      queries: CLIENT_QUERIES * CLIENT_ROUNDS,
    };
  } finally {
    await store.close();
    await raw.end();
    await admin.end();
  }
  return out;
}
