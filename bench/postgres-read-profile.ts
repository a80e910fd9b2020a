/**
 * Where a PostgresMemoryStore read spends its time on a real server: for one
 * user (prefix ["users","u1"], 100 items) and all users (["users"]), ours
 * against raw pgvector on the store's own tables (same ef_search), queries
 * interleaved, with this process's CPU per search; then every statement one
 * search sends (round-trip time each) and EXPLAIN (ANALYZE, BUFFERS) of the
 * vector statements with the store's own settings.
 *
 * The loaded database is kept (`pgread_<n>`), so re-runs skip the load.
 * With --layers: one user's search layer by layer (store, its statement
 * through `pg`, that statement returning keys only, raw), CPU per query.
 * With --loop=N only N searches of --prefix (one|all) run (--side=raw: the raw statement), for
 * `node --cpu-prof` (`npx tsx --cpu-prof bench/postgres-read-profile.ts --loop=3000`).
 *
 * Run: DATABASE_URL=postgres://… npx tsx bench/postgres-read-profile.ts [--n=10000] [--queries=200]
 * (without DATABASE_URL a throwaway cluster is started, and nothing is kept).
 */
import os from "node:os";
import pg from "pg";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { fittedEfSearch } from "../src/store/postgres/fitted-ef.js";
import { annSql, scopeRowsSql } from "../src/store/postgres/search.js";
import { tables, vectorParam } from "../src/store/postgres/sql.js";
import { benchServer } from "./lib/pg-server.js";
import { statementLog } from "./lib/pg-statement-log.js";
import { latency, lowRankUnitVectors, PrecomputedEmbeddings, row } from "./lib/vectors.js";

const DIMS = 512;
const K = 10;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 10_000);
const nQueries = Number(args.get("queries") ?? 200);
const loop = Number(args.get("loop") ?? 0);
const userOf = (i: number) => (i < 100 ? "u1" : `u${2 + (i % 999)}`);
const prefixes: Record<string, string[]> = { one: ["users", "u1"], all: ["users"] };

const { url: serverUrl, stop } = await benchServer("postgres-read-profile");
const dbName = `pgread_${n}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [dbName])).rowCount === 1;
if (!exists) await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();
const url = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();

// Every statement sent through `pg`, with its round-trip time, while trace.on.
const trace = statementLog();
const log = trace.log;

const data = lowRankUnitVectors(n, DIMS, 1);
const queries = lowRankUnitVectors(nQueries, DIMS, 2);
const store = new PostgresMemoryStore({ connectionString: url, poolConfig: { max: 2, ...(process.env.PCM ? { options: `-c plan_cache_mode=${process.env.PCM}` } : {}) }, index: { dims: DIMS, embeddings: new PrecomputedEmbeddings(data, queries, DIMS), fields: ["text"] }, retrieval: "vector" });
await store.setup();
if (!exists) {
  for (let s = 0; s < n; s += 500) {
    const ops = [];
    for (let i = s; i < Math.min(n, s + 500); i++) ops.push({ namespace: ["users", userOf(i)], key: `r${i}`, value: { text: `v:${i}` } });
    await store.batch(ops);
  }
  await store.flushIndex();
}
const raw = new pg.Pool({ connectionString: url, max: 2, options: `-c hnsw.ef_search=${fittedEfSearch(n)}` });
await raw.query("VACUUM ANALYZE memory_items, memory_vectors, memory_pending_vectors");
const qs = Array.from({ length: nQueries }, (_, q) => vectorParam(row(queries, DIMS, q)));
const rawSql: Record<string, string> = {
  one: `SELECT key FROM memory_vectors WHERE ns = 'users.u1' ORDER BY embedding <=> $1::vector LIMIT ${K}`,
  all: `SELECT key FROM memory_vectors ORDER BY embedding <=> $1::vector LIMIT ${K}`,
};
const ours = (which: string) => (q: number) => store.search(prefixes[which]!, { query: `q:${q % nQueries}`, limit: K });
const rawSide = (which: string) => (q: number) => raw.query(rawSql[which]!, [qs[q % nQueries]]);

if (args.has("layers")) {
  // One search layer by layer (--prefix=one|all), this process's CPU per query, the four sides
  // rotating query by query: the store; its ranked statement sent straight through `pg` (same name,
  // text and values); that statement returning keys only; raw pgvector.
  const which = args.get("prefix") ?? "one";
  const t = tables("public", "memory_");
  const statement = (q: number) =>
    which === "one" ? scopeRowsSql(t, { namespacePrefix: prefixes.one! }, Date.now(), qs[q % nQueries]!, K, K, true) : annSql(t, { namespacePrefix: prefixes.all! }, Date.now(), qs[q % nQueries]!, K, K);
  const keysOnly = (text: string) => (which === "one" ? text.replace("SELECT i.*, b.d", "SELECT i.key") : text.replace(/SELECT u\.d, [^\n]*? FROM \(\(/, "SELECT u.key FROM (("));
  const sides: [string, (q: number) => Promise<unknown>][] = [
    ["store.search", ours(which)],
    ["its statement", (q) => { const s = statement(q); return raw.query({ name: `layers_rows_${which}`, text: s.text, values: s.values }); }],
    ["keys only", (q) => { const s = statement(q); return raw.query({ name: `layers_keys_${which}`, text: keysOnly(s.text), values: s.values }); }],
    ["raw pgvector", rawSide(which)],
  ];
  const cpu = sides.map(() => 0);
  for (let q = 0; q < nQueries * 10 + 20; q++) {
    for (let j = 0; j < sides.length; j++) {
      const s = (j + q) % sides.length;
      const c = process.cpuUsage();
      await sides[s]![1](q);
      const u = process.cpuUsage(c);
      if (q >= 20) cpu[s]! += (u.user + u.system) / 1000;
    }
  }
  console.log(`${sides.map(([name], s) => `${name} ${(cpu[s]! / (nQueries * 10)).toFixed(3)}`).join(", ")} ms of this process's CPU per query (load ${os.loadavg()[0].toFixed(2)})`);
} else if (loop > 0) {
  const which = args.get("prefix") ?? "one";
  const side = args.get("side") === "raw" ? rawSide(which) : ours(which);
  for (let q = 0; q < 50; q++) await side(q);
  const c = process.cpuUsage();
  for (let q = 0; q < loop; q++) await side(q);
  const used = process.cpuUsage(c);
  console.log(`${args.get("side") ?? "ours"} ${which}: ${((used.user + used.system) / 1000 / loop).toFixed(3)} ms CPU per search (user ${(used.user / 1000 / loop).toFixed(3)}), load ${os.loadavg()[0].toFixed(2)}`);
} else {
  const masked = (s: string) => s.replace(/'\[[-0-9.,e]{200,}\]'/g, "'[…]'");
  const short = (s: string) => s.replace(/\s+/g, " ").replace(/"public"\./g, "").slice(0, 160);
  for (const which of ["one", "all"]) {
    const sides = [ours(which), rawSide(which)];
    const ms: number[][] = [[], []];
    const cpu = [0, 0];
    for (let q = 0; q < nQueries + 5; q++) {
      for (let s = 0; s < 2; s++) {
        const c = process.cpuUsage();
        const t = performance.now();
        await sides[s]!(q);
        const took = performance.now() - t;
        const used = process.cpuUsage(c);
        if (q < 5) continue;
        ms[s]!.push(took);
        cpu[s]! += (used.user + used.system) / 1000;
      }
    }
    const [o, r] = [latency(ms[0]!), latency(ms[1]!)];
    console.log(`\n=== ${which} user(s): ours p50 ${o.p50.toFixed(3)} ms, raw ${r.p50.toFixed(3)} ms, ratio ${(o.p50 / r.p50).toFixed(2)}; node CPU/search ours ${(cpu[0]! / nQueries).toFixed(3)} ms, raw ${(cpu[1]! / nQueries).toFixed(3)} ms (load ${os.loadavg()[0].toFixed(2)})`);
    log.length = 0;
    trace.on = true;
    await ours(which)(1);
    trace.on = false;
    for (const l of log) console.log(`  ${l.ms.toFixed(3).padStart(7)} ms  ${short(l.text)}`);
    const client = await store.connectionPool!.connect();
    try {
      for (const l of log.filter((x) => /^\s*SELECT/.test(x.text) && x.text.includes("<=>"))) {
        const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${l.text}`, l.values);
        console.log(plan.rows.map((x) => "    " + masked(String(x["QUERY PLAN"]))).join("\n"));
      }
    } finally {
      client.release();
    }
    const plan = await raw.query(`EXPLAIN (ANALYZE, BUFFERS) ${rawSql[which]}`, [qs[1]]);
    console.log("  raw:\n" + plan.rows.map((x) => "    " + masked(String(x["QUERY PLAN"]))).join("\n"));
  }
}
await store.close();
await raw.end();
stop();
