/**
 * One user's search on a real PostgreSQL server in the default hybrid mode
 * against vector-only, for users of 100, 500 and 2,000 facts (the sizes a
 * small selection, ranked exactly, spans: `hnsw.exactScanThreshold` is
 * 2,000). Facts are the texts of bench/data/facts-dev-a.json (numbered to
 * make 2,000), queries that set's questions; the embedder is the tests' bag
 * of words (FakeEmbeddings: TIMING ONLY, its rankings mean little). Both stores share the
 * tables; searches alternate between them, untimed ones first.
 *
 * Run: npx tsx bench/postgres-small-hybrid.ts [--sizes=100,500,2000] [--queries=1000]
 * (DATABASE_URL, or a throwaway cluster is started).
 */
import os from "node:os";
import pg from "pg";
import { PostgresMemoryStore } from "../src/store/postgres/index.js";
import { loadFactsDevSet } from "./lib/facts-sets.js";
import { benchServer } from "./lib/pg-server.js";
import { latency } from "./lib/vectors.js";
import { FakeEmbeddings } from "../test/helpers/fake-embeddings.js";

const DIMS = 512;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const sizes = (args.get("sizes") ?? "100,500,2000").split(",").map(Number);
const queries = Number(args.get("queries") ?? 1000);
const WARMUP = 300;

const set = await loadFactsDevSet("facts-dev-a.json");
const texts = set.people.flatMap((p) => p.facts.map((f) => f.text));
const questions = set.people.flatMap((p) => p.questions.map((q) => q.q));
const { url, stop } = await benchServer("postgres-small-hybrid");
const schema = `small_hybrid_${process.pid}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
const embeddings = new FakeEmbeddings({ dims: DIMS });
const open = (retrieval: "vector" | "hybrid") => new PostgresMemoryStore({ connectionString: url, schema, poolConfig: { max: 2 }, index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval });
const stores = { vector: open("vector"), hybrid: open("hybrid") };
try {
  for (const s of Object.values(stores)) await s.setup();
  for (const n of sizes) {
    for (let s = 0; s < n; s += 200) {
      await stores.hybrid.batch(Array.from({ length: Math.min(200, n - s) }, (_, j) => ({ namespace: ["users", `n${n}`], key: `k${s + j}`, value: { text: `${texts[(s + j) % texts.length]} (${s + j})` } })));
    }
  }
  await stores.hybrid.flushIndex();
  await admin.query(`VACUUM ANALYZE "${schema}".memory_items, "${schema}".memory_vectors, "${schema}".memory_pending_vectors`);
  console.log(`bench:postgres-small-hybrid cpus=${os.cpus().length} load=${os.loadavg()[0].toFixed(2)} at=${new Date().toISOString()}`);
  console.log("| facts of the user | mode | p50 ms | p95 ms | p99 ms | this process's CPU ms per search |\n|---|---|---|---|---|---|");
  for (const n of sizes) {
    const wall = { vector: [] as number[], hybrid: [] as number[] };
    const cpu = { vector: 0, hybrid: 0 };
    for (let q = 0; q < queries + WARMUP; q++) {
      for (const mode of ["vector", "hybrid"] as const) {
        const c = process.cpuUsage();
        const t = performance.now();
        await stores[mode].search(["users", `n${n}`], { query: questions[q % questions.length]!, limit: 5 });
        const ms = performance.now() - t;
        const used = process.cpuUsage(c);
        if (q < WARMUP) continue;
        wall[mode].push(ms);
        cpu[mode] += (used.user + used.system) / 1000;
      }
    }
    for (const mode of ["vector", "hybrid"] as const) {
      const l = latency(wall[mode]);
      console.log(`| ${n} | ${mode} | ${l.p50.toFixed(2)} | ${l.p95.toFixed(2)} | ${l.p99.toFixed(2)} | ${(cpu[mode] / queries).toFixed(2)} |`);
    }
  }
  console.log(`load=${os.loadavg()[0].toFixed(2)} at=${new Date().toISOString()}`);
} finally {
  for (const s of Object.values(stores)) await s.close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  stop();
}
