import pg from "pg";
import { PostgresMemoryStore } from "./src/store/postgres/index.js";
import { lowRankUnitVectors, PrecomputedEmbeddings } from "./bench/lib/vectors.js";
const url = "postgres://postgres@127.0.0.1:55432/postgres";
const pool = new pg.Pool({ connectionString: url, max: 2 });
const times = new Map<string, number>();
const connect = pool.connect.bind(pool) as any;
(pool as any).connect = async () => { const c = await connect(); if (!(c as any).__w) { (c as any).__w = 1; const q = c.query.bind(c); c.query = async (t: string, v?: any) => { const s = performance.now(); try { return await q(t, v); } finally { const k = t.slice(0, 40).replace(/\s+/g, " "); times.set(k, (times.get(k) ?? 0) + performance.now() - s); } }; } return c; };
const n = 5000, D = 512;
const data = lowRankUnitVectors(n, D, 1);
const emb = new PrecomputedEmbeddings(data, lowRankUnitVectors(5, D, 2), D);
const schema = "prof" + process.pid;
const store = new PostgresMemoryStore({ pool, schema, index: { dims: D, embeddings: emb, fields: ["text"] }, retrieval: "vector" });
await store.setup();
const t = performance.now();
for (let s = 0; s < n; s += 500) {
  const ops = [];
  for (let i = s; i < s + 500; i++) ops.push({ namespace: ["users", `u${i % 100}`], key: `r${i}`, value: { text: `v:${i}` } });
  await store.batch(ops);
}
console.log("put/s", Math.round(n / ((performance.now() - t) / 1000)));
console.log([...times].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${v.toFixed(0)}ms ${k}`).join("\n"));
await store.close(); await pool.query(`DROP SCHEMA ${schema} CASCADE`); await pool.end();
