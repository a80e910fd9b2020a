/**
 * What a put costs in pgvector, lever by lever: N 512-d embedding-like
 * vectors (bench/lib/vectors.ts) inserted in batches of 500, one transaction
 * per batch, into a bare vectors table shaped like the store's, under each
 * variant. The store's puts are this plus the items upsert, so this bounds
 * what each lever can give them (docs/postgres.md, "Puts").
 *
 * Variants: the text form of each vector in one `unnest` INSERT (the store
 * before), binary parameters in a multi-row VALUES (one writer, as the store
 * inserted before deferred indexing), the same from two connections at once
 * (half the rows each: what the store's two index workers do), no index
 * (what a put costs now that its vectors wait in the pending table), no
 * index then one bulk `CREATE INDEX` (with 0 and 1 parallel maintenance
 * workers, and `CONCURRENTLY` with the server's default workers, as the
 * store's bulk loads build it), ef_construction 32, and a halfvec column with
 * a halfvec HNSW index.
 *
 * Run: npx tsx bench/postgres-inserts.ts [--n=4000] [--only=substring]
 * (DATABASE_URL, or a throwaway cluster as bench:postgres starts).
 */
import os from "node:os";
import pg from "pg";
import { benchServer } from "./lib/pg-server.js";
import { vectorParam } from "../src/store/postgres/sql.js";
import { lowRankUnitVectors } from "./lib/vectors.js";

const DIMS = 512;
const BATCH = 500;
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 4000);
const only = args.get("only");

interface Variant {
  column: string;
  index: string;
  binary: boolean;
  cast?: string;
  /** Connections inserting at once (each its share of the batches). */
  clients?: number;
  /** Build this index after the rows are in, with this many parallel maintenance workers. */
  buildAfter?: { index: string; workers: number; concurrently?: boolean };
}
const HNSW = (ops: string, ef: number) => `USING hnsw (embedding ${ops}) WITH (m = 16, ef_construction = ${ef})`;
const variants: Record<string, Variant> = {
  "vector, HNSW(16,64), text in unnest (before)": { column: `vector(${DIMS})`, index: HNSW("vector_cosine_ops", 64), binary: false },
  "vector, HNSW(16,64), binary VALUES (now)": { column: `vector(${DIMS})`, index: HNSW("vector_cosine_ops", 64), binary: true },
  "vector, HNSW(16,64), binary VALUES, 2 connections": { column: `vector(${DIMS})`, index: HNSW("vector_cosine_ops", 64), binary: true, clients: 2 },
  "vector, no index, binary VALUES": { column: `vector(${DIMS})`, index: "", binary: true },
  "vector, no index, then CREATE INDEX HNSW(16,64)": { column: `vector(${DIMS})`, index: "", binary: true, buildAfter: { index: HNSW("vector_cosine_ops", 64), workers: 0 } },
  "the same, 1 parallel maintenance worker": { column: `vector(${DIMS})`, index: "", binary: true, buildAfter: { index: HNSW("vector_cosine_ops", 64), workers: 1 } },
  "the same, CONCURRENTLY, server's default workers (the store's bulk loads)": { column: `vector(${DIMS})`, index: "", binary: true, buildAfter: { index: HNSW("vector_cosine_ops", 64), workers: -1, concurrently: true } },
  "vector, HNSW(16,32), binary VALUES": { column: `vector(${DIMS})`, index: HNSW("vector_cosine_ops", 32), binary: true },
  "halfvec, HNSW(16,64), binary VALUES": { column: `halfvec(${DIMS})`, index: HNSW("halfvec_cosine_ops", 64), binary: true, cast: "::halfvec" },
};

async function main() {
  const { url, stop } = await benchServer("bench:postgres-inserts");
  const c = await connect(url);
  try {
    await c.query("CREATE EXTENSION IF NOT EXISTS vector");
    console.log(`bench:postgres-inserts n=${n} cpus=${os.cpus().length} load=${os.loadavg()[0].toFixed(1)} at=${new Date().toISOString()}`);
    const data = lowRankUnitVectors(n, DIMS, 7);
    const vec = (i: number) => data.subarray(i * DIMS, (i + 1) * DIMS);
    for (const [name, v] of Object.entries(variants)) {
      if (only && !name.includes(only)) continue;
      await c.query("DROP TABLE IF EXISTS insert_probe");
      await c.query(`CREATE TABLE insert_probe (ns text COLLATE "C" NOT NULL, key text NOT NULL, field text NOT NULL, embedding ${v.column} NOT NULL,
        PRIMARY KEY (ns, key, field)) WITH (toast_tuple_target = 8160)`);
      if (v.index) await c.query(`CREATE INDEX ON insert_probe ${v.index}`);
      const clients = await Promise.all(Array.from({ length: v.clients ?? 1 }, async (_, k) => (k === 0 ? c : connect(url))));
      const t0 = performance.now();
      // Client k takes batches k, k + clients, …; each batch is one transaction.
      await Promise.all(
        clients.map(async (cl, k) => {
          for (let s = k * BATCH; s < n; s += BATCH * clients.length) {
            const rows = Array.from({ length: Math.min(BATCH, n - s) }, (_, j) => s + j);
            await cl.query("BEGIN");
            if (v.binary) {
              const values: unknown[] = [];
              const tuples = rows.map((i, j) => {
                values.push(`users.u${i % 999}`, `r${i}`, "text", vectorParam(vec(i)));
                return `($${4 * j + 1}, $${4 * j + 2}, $${4 * j + 3}, $${4 * j + 4}::vector${v.cast ?? ""})`;
              });
              await cl.query(`INSERT INTO insert_probe (ns, key, field, embedding) VALUES ${tuples.join(", ")}`, values);
            } else {
              await cl.query(
                `INSERT INTO insert_probe SELECT u.ns, u.key, u.field, u.emb::vector FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(ns, key, field, emb)`,
                [rows.map((i) => `users.u${i % 999}`), rows.map((i) => `r${i}`), rows.map(() => "text"), rows.map((i) => `[${vec(i).join(",")}]`)],
              );
            }
            await cl.query("COMMIT");
          }
        }),
      );
      if (v.buildAfter) {
        if (v.buildAfter.workers >= 0) await c.query(`SET max_parallel_maintenance_workers = ${v.buildAfter.workers}`);
        await c.query(`CREATE INDEX${v.buildAfter.concurrently ? " CONCURRENTLY" : ""} ON insert_probe ${v.buildAfter.index}`);
        await c.query("RESET max_parallel_maintenance_workers");
      }
      const ms = performance.now() - t0;
      for (const cl of clients.slice(1)) await cl.end();
      console.log(`${name.padEnd(48)} ${Math.round(n / (ms / 1000))} vectors/s`);
    }
    await c.query("DROP TABLE IF EXISTS insert_probe");
  } finally {
    await c.end();
    stop?.();
  }
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

await main();
