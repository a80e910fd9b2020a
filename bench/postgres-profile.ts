/**
 * Profile of PostgresMemoryStore's search on PGlite: logs every statement a
 * search sends (with its time through the socket), then runs the search SQL
 * with EXPLAIN (ANALYZE, BUFFERS) on PGlite directly, and times PGlite's own
 * `query()` against the same statement through pglite-socket + `pg`.
 *
 * Run: npx tsx bench/postgres-profile.ts [--n=10000] [--dir=/tmp/pgprof-10000]
 * The loaded PGlite directory is kept (--dir) so that re-runs skip the load.
 */
import { existsSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { statementLog } from "./lib/pg-statement-log.js";
import { latency, lowRankUnitVectors, PrecomputedEmbeddings } from "./lib/vectors.js";

const DIMS = 512;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 10000);
const dir = args.get("dir") ?? `/tmp/pgprof-${n}`;
const all = args.has("all");
const userOf = (i: number) => (i < 100 ? "u1" : `u${2 + (i % 999)}`);

const fresh = !existsSync(dir);
const db = await PGlite.create(dir, { extensions: { vector } });
const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
await server.start();
const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;

// Every statement sent through `pg`, with its round-trip time, while trace.on.
const trace = statementLog();
const log = trace.log;

const data = lowRankUnitVectors(n, DIMS, 1);
const queries = lowRankUnitVectors(20, DIMS, 2);
const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
const pool = new pg.Pool({ connectionString: url, max: 1 });
const store = new PostgresMemoryStore({ pool, index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: (args.get("retrieval") as "vector") ?? "vector" });
await store.setup();
if (fresh) {
  const t = performance.now();
  for (let s = 0; s < n; s += 500) {
    const ops = [];
    for (let i = s; i < Math.min(n, s + 500); i++) ops.push({ namespace: ["users", userOf(i)], key: `r${i}`, value: { text: `v:${i}` } });
    await store.batch(ops);
    process.stderr.write(`  ${s + 500} put\r`);
  }
  console.log(`loaded ${n} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

function fromBinary(b: Buffer): string {
  const n = b.readInt16BE(0);
  return `[${Array.from({ length: n }, (_, i) => b.readFloatBE(4 + 4 * i)).join(",")}]`;
}
const short = (s: string) => s.replace(/\s+/g, " ").replace(/\[[-0-9.,e]{200,}\]/g, "[…vector…]").slice(0, 220);
for (const [label, prefix] of [
  ["search all", ["users"]],
  ["one user", ["users", "u1"]],
] as const) {
  for (let q = 0; q < 3; q++) await store.search([...prefix], { query: `q:${q}`, limit: 10 });
  const times: number[] = [];
  log.length = 0;
  trace.on = true;
  for (let q = 0; q < 50; q++) {
    const t0 = performance.now();
    await store.search([...prefix], { query: `q:${q}`, limit: 10 });
    times.push(performance.now() - t0);
  }
  trace.on = false;
  // Median time of each statement kind over the 20 searches.
  const kinds = new Map<string, number[]>();
  for (const l of log) {
    const k = short(l.text).slice(0, 90);
    kinds.set(k, [...(kinds.get(k) ?? []), l.ms]);
  }
  console.log(`\n--- ${label}: statement medians over 50 searches`);
  for (const [k, ms] of kinds) console.log(`  ${latency(ms).p50.toFixed(2).padStart(7)} ms ×${ms.length / 50}  ${k}`);
  log.length = 0;
  trace.on = true;
  const t0 = performance.now();
  await store.search([...prefix], { query: "q:5", limit: 10 });
  const total = performance.now() - t0;
  trace.on = false;
  console.log(`\n=== ${label} ${JSON.stringify(prefix)}: store.search p50 ${latency(times).p50.toFixed(2)} ms, min ${Math.min(...times).toFixed(2)} ms (50 queries); traced one: ${total.toFixed(2)} ms, ${log.length} statements`);
  for (const l of log) console.log(`  ${l.ms.toFixed(2).padStart(7)} ms  ${short(l.text)}`);
  const main = log.filter((l) => /^\s*SELECT/.test(l.text) && l.values?.length && (all || /embedding <=>/.test(l.text)));
  for (const m0 of main) {
    // PGlite's query() would send a Buffer as bytea: give it pgvector's text form instead.
    const m = { ...m0, values: m0.values?.map((v) => (Buffer.isBuffer(v) ? fromBinary(v) : v)) };
    // The same statement straight into PGlite (no socket, no pg), then EXPLAIN.
    const sets = log.filter((l) => /^SET LOCAL/.test(l.text)).map((l) => l.text);
    const direct: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t1 = performance.now();
      await db.transaction(async (tx) => {
        for (const s of sets) await tx.exec(s);
        await tx.query(m.text, m.values as unknown[]);
      });
      direct.push(performance.now() - t1);
    }
    const viaPg: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await pool.connect();
      const t1 = performance.now();
      await c.query("BEGIN");
      for (const s of sets) await c.query(s);
      await c.query(m.text, m.values as unknown[]);
      await c.query("COMMIT");
      viaPg.push(performance.now() - t1);
      c.release();
    }
    console.log(`  same statement: PGlite query() direct p50 ${latency(direct).p50.toFixed(2)} ms; via socket+pg p50 ${latency(viaPg).p50.toFixed(2)} ms`);
    const plan = await db.transaction(async (tx) => {
      for (const s of sets) await tx.exec(s);
      return tx.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${m.text}`, m.values as unknown[]);
    });
    console.log(plan.rows.map((r) => "    " + r["QUERY PLAN"].replace(/'\[[-0-9.,e]{200,}\]'/g, "'[…vector…]'")).join("\n"));
  }
}
// Raw cost of parsing the 512-float text literal, and of a bare round trip.
const vec = `[${Array.from(queries.subarray(0, DIMS)).join(",")}]`;
for (const [label, sql, params] of [
  ["SELECT 1", "SELECT 1", []],
  ["parse vector text", "SELECT $1::vector IS NULL", [vec]],
] as const) {
  const d: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < 30; i++) {
    let t = performance.now();
    await db.query(sql, [...params]);
    d.push(performance.now() - t);
    t = performance.now();
    await pool.query(sql, [...params]);
    s.push(performance.now() - t);
  }
  console.log(`${label}: PGlite direct p50 ${latency(d).p50.toFixed(3)} ms, via socket+pg p50 ${latency(s).p50.toFixed(3)} ms`);
}
await store.close();
await pool.end();
await server.stop();
await db.close();
