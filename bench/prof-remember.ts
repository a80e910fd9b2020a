// Scratch profile (not committed): remember vs put breakdown.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { createMemoryTools } from "../src/graph/tools.js";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { waitForPendingWrites } from "../src/scope/pending-writes.js";

const use = new UniversalSentenceEncoderEmbeddings();
const dir = await mkdtemp(join(os.tmpdir(), "prof-rem-"));
const store = new HNSWStore({ path: dir, index: { dims: use.dims, embeddings: use, fields: ["text"] } });
await use.embedQuery("warm");
for (let u = 0; u < 5; u++) await store.batch(Array.from({ length: 200 }, (_, i) => ({ namespace: ["users", `u${u}`], key: `m${i}`, value: { text: `User fact ${u}-${i} about cooking` }, index: ["text"] })));
const remember = createMemoryTools({ namespace: ["users", "{user_id}"], store }).find((x) => x.name === "remember")!;
const T: Record<string, number[]> = { put: [], remember: [], embedQ: [], search: [], putHit: [], invokeOverhead: [], wait: [] };
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2);
const fact = (k: string, i: number) => `User ${k} fact number ${i}: cooking with friends ${i * 7}.`;
const N = Number(process.env.N ?? 80);
for (let i = 0; i < N; i++) {
  let t = performance.now();
  await store.put(["users", "writer"], `p${i}`, { text: fact("put", i) }, ["text"]);
  T.put.push(performance.now() - t);
  t = performance.now();
  await remember.invoke({ content: fact("remembered", i) }, { configurable: { user_id: "writer" } });
  T.remember.push(performance.now() - t);
  // manual breakdown on a third text
  const text = fact("manual", i);
  t = performance.now();
  await waitForPendingWrites(store, ["users", "writer"]);
  T.wait.push(performance.now() - t);
  t = performance.now();
  await store.search(["users", "writer"], { query: text, limit: 3 });
  T.search.push(performance.now() - t);
  t = performance.now();
  await store.put(["users", "writer"], `x${i}`, { text }, ["text"]);
  T.putHit.push(performance.now() - t);
}
for (const [k, v] of Object.entries(T)) console.log(k.padEnd(16), v.length ? med(v.slice(10)) : "-");
await store.close();
await rm(dir, { recursive: true, force: true });
process.exit(0);
