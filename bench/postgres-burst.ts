/**
 * Benchmark: how fast PostgresMemoryStore takes a burst of puts into a
 * loaded table, with no searches running, for each pending bound
 * (`hnsw.maxPendingVectors`): acknowledged (the writer's last batch
 * returned) and indexed (`flushIndex()` resolved) puts per second, and the
 * most vectors seen pending. A search compares every pending vector of its
 * scope exactly, so the bound is what a burst costs each search meanwhile
 * (bench:postgres, "during a burst"); this is what it costs the writer.
 *
 * The table of `--n` items (the layout of bench:postgres, 512-d low-rank
 * vectors) is loaded once into a template database; every run starts from a
 * copy of it, the bounds in turn.
 *
 * Options: --n=10000, --burst=2200, --batch=100 (puts per batch, as the
 * floor's burst), --bounds=fitted,500,1000 (fitted: the store's default),
 * --runs=2.
 * Run: npm run bench:postgres-burst (DATABASE_URL, or a throwaway cluster).
 */
import os from "node:os";
import pg from "pg";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { benchServer } from "./lib/pg-server.js";
import { lowRankUnitVectors, PrecomputedEmbeddings } from "./lib/vectors.js";

const DIMS = 512;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const whole = (name: string, fallback: number): number => {
  const v = Number(args.get(name) ?? fallback);
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a whole number > 0, got ${args.get(name)}`);
  return v;
};
const n = whole("n", 10_000);
const burst = whole("burst", 2200);
const batch = whole("batch", 100);
const runs = whole("runs", 2);
const bounds = (args.get("bounds") ?? "fitted,500,1000").split(",").map((b) => (b === "fitted" ? undefined : Number(b)));
for (const b of bounds) if (b !== undefined && !(Number.isInteger(b) && b > 0)) throw new Error(`--bounds: "fitted" or whole numbers > 0`);

const userOf = (i: number) => (i < 100 ? "u1" : `u${2 + (i % 999)}`);
const embeddings = new PrecomputedEmbeddings(lowRankUnitVectors(n + burst, DIMS, 1), lowRankUnitVectors(1, DIMS, 2), DIMS);
const index = { dims: DIMS, embeddings, fields: ["text"] };
const ops = (from: number, to: number) => Array.from({ length: to - from }, (_, j) => ({ namespace: ["users", userOf(from + j)], key: `r${from + j}`, value: { text: `v:${from + j}` } }));

const { url: serverUrl, stop } = await benchServer("postgres-burst");
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const urlOf = (db: string) => Object.assign(new URL(serverUrl), { pathname: `/${db}` }).toString();
const template = `bench_burst_tpl_${n}`;
const run = `bench_burst_run_${n}`;
try {
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const loader = new PostgresMemoryStore({ connectionString: urlOf(template), index, retrieval: "vector" });
  for (let s = 0; s < n; s += 500) await loader.batch(ops(s, Math.min(n, s + 500)));
  await loader.flushIndex();
  await loader.close();
  const vac = new pg.Client({ connectionString: urlOf(template) });
  await vac.connect();
  await vac.query("VACUUM ANALYZE memory_items, memory_vectors, memory_pending_vectors");
  await vac.end();

  console.log(`| n | bound | acked puts/s | indexed puts/s | most pending | load | time |`);
  console.log(`|---|---|---|---|---|---|---|`);
  for (let r = 0; r < runs; r++) {
    for (const bound of bounds) {
      await admin.query(`DROP DATABASE IF EXISTS ${run}`);
      await admin.query(`CREATE DATABASE ${run} TEMPLATE ${template}`);
      const store = new PostgresMemoryStore({ connectionString: urlOf(run), poolConfig: { max: 8 }, index, retrieval: "vector", ...(bound === undefined ? {} : { hnsw: { maxPendingVectors: bound } }) });
      await store.setup();
      const watch = new pg.Client({ connectionString: urlOf(run) });
      await watch.connect();
      let writing = true;
      let most = 0;
      const sampler = (async () => {
        while (writing) {
          most = Math.max(most, Number((await watch.query("SELECT count(*)::int AS c FROM memory_pending_vectors")).rows[0].c));
          await new Promise((res) => setTimeout(res, 20));
        }
      })();
      const t0 = performance.now();
      for (let s = n; s < n + burst; s += batch) await store.batch(ops(s, Math.min(n + burst, s + batch)));
      const acked = performance.now() - t0;
      writing = false;
      await sampler;
      await store.flushIndex();
      const indexed = performance.now() - t0;
      await watch.end();
      await store.close();
      const perSec = (ms: number) => Math.round(burst / (ms / 1000));
      console.log(`| ${n} | ${bound ?? "fitted"} | ${perSec(acked)} | ${perSec(indexed)} | ${most} | ${os.loadavg()[0].toFixed(2)} | ${new Date().toISOString().slice(11, 19)} |`);
    }
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${run} WITH (FORCE)`).catch(() => undefined);
  await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  stop();
}
