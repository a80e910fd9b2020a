/**
 * One writer process for test/postgres/multi-process.test.ts. Its own
 * PostgresMemoryStore (own pool of 4 connections, no vector index: Debian's
 * PostgreSQL has no pgvector) runs `batches` batches, 4 in flight at a time:
 *
 * - batch b puts `own/<b>-<i>` (5 items) in ["users", "p<id>"], then reads
 *   one back in the same batch, and deletes its own item 4 again;
 * - every batch also rewrites the shared keys s0…s9 in ["shared"] with its
 *   tag, in two runs with a read between them, half the writers in reverse
 *   order (the store locks a batch's items in one order first: they queue,
 *   where they used to deadlock and retry).
 *
 * Prints `ack <b>` per acknowledged batch and `done` at the end.
 */
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";

const [url, schema, idArg, batchesArg] = process.argv.slice(2);
const id = Number(idArg);
const batches = Number(batchesArg);
const store = new PostgresMemoryStore({ connectionString: url, schema, poolConfig: { max: 4 }, maxRetries: 50 });

async function runBatch(b: number) {
  const ns = ["users", `p${id}`];
  const tag = `${id}:${b}`;
  const shared = Array.from({ length: 10 }, (_, i) => `s${i}`);
  if (id % 2) shared.reverse();
  const ops = [];
  for (let i = 0; i < 5; i++) ops.push({ namespace: ns, key: `own/${b}-${i}`, value: { writer: id, batch: b, i, text: `writer ${id} batch ${b}` } });
  ops.push({ namespace: ns, key: `own/${b}-0` });
  for (const [i, key] of shared.entries()) {
    if (i === 5) ops.push({ namespace: ns, key: `own/${b}-1` });
    ops.push({ namespace: ["shared"], key, value: { tag } });
  }
  ops.push({ namespace: ns, key: `own/${b}-4`, value: null });
  const results = await store.batch(ops);
  const readBack = results[5] as { value: { batch: number } } | null;
  if (readBack?.value.batch !== b) throw new Error(`batch ${b}: read-back inside the batch saw ${JSON.stringify(readBack)}`);
  process.stdout.write(`ack ${b}\n`);
}

let next = 0;
async function lane() {
  while (next < batches) await runBatch(next++);
}
await store.setup();
await Promise.all([lane(), lane(), lane(), lane()]);
await store.close();
process.stdout.write("done\n");
