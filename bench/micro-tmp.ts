import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";
import { latency, lowRankUnitVectors } from "./lib/vectors.js";
import { vectorParam } from "../src/store/postgres/sql.js";
const db = await PGlite.create("/tmp/pgprof-10000", { extensions: { vector } });
const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
await server.start();
const pool = new pg.Pool({ connectionString: `postgres://postgres:postgres@${server.getServerConn()}/postgres`, max: 1 });
const qs = lowRankUnitVectors(40, 512, 2);
const vecs = Array.from({ length: 40 }, (_, i) => Array.from(qs.subarray(i * 512, (i + 1) * 512)));
const exact = `SELECT v.ns, v.key, min(v.embedding <=> $1::vector) AS d FROM memory_vectors v JOIN memory_items i ON i.ns = v.ns AND i.key = v.key WHERE (i.ns >= 'users.u1' AND i.ns < 'users.u1/' AND (i.ns = 'users.u1' OR i.ns >= 'users.u1.')) GROUP BY v.ns, v.key ORDER BY d, v.ns, v.key LIMIT 2000`;
const noagg = `SELECT v.ns, v.key FROM memory_vectors v JOIN memory_items i ON i.ns = v.ns AND i.key = v.key WHERE (i.ns >= 'users.u1' AND i.ns < 'users.u1/' AND (i.ns = 'users.u1' OR i.ns >= 'users.u1.')) AND $1::vector IS NOT NULL`;
for (const [label, sql] of [["exact", exact], ["no distance", noagg]]) {
  const d: number[] = [], st: number[] = [], sb: number[] = [];
  for (let i = 0; i < 40; i++) {
    const text = `[${vecs[i].join(",")}]`;
    let t = performance.now(); await db.query(sql, [text]); d.push(performance.now() - t);
    t = performance.now(); await pool.query(sql, [text]); st.push(performance.now() - t);
    t = performance.now(); await pool.query(sql, [vectorParam(vecs[i])]); sb.push(performance.now() - t);
  }
  console.log(`${label}: direct text ${Math.min(...d).toFixed(2)}  socket text ${Math.min(...st).toFixed(2)}  socket binary ${Math.min(...sb).toFixed(2)}`);
}
await pool.end(); await server.stop(); await db.close();
