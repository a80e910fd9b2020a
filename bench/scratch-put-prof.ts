import { Session } from "node:inspector/promises";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import hnswlib from "hnswlib-node";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { idText, PrecomputedEmbeddings, randomUnitVectors, row } from "./lib/vectors.js";

const N = Number(process.argv[2] ?? 10000);
const DIMS = 512;
const data = randomUnitVectors(N, DIMS, 1);
const queries = randomUnitVectors(50, DIMS, 2);
const dir = await mkdtemp(join(os.tmpdir(), "scratch-put-"));
const store = new HNSWStore({ path: dir, index: { dims: DIMS, embeddings: new PrecomputedEmbeddings(data, queries, DIMS), fields: ["text"] }, retrieval: "vector", embeddingCache: false });
await store.open();
const raw = new hnswlib.HierarchicalNSW("cosine", DIMS);
raw.initIndex({ maxElements: N, m: 16, efConstruction: 200, randomSeed: 100 });
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 500 });
if (!process.env.NOPROF) await session.post("Profiler.start");
let st = 0, rt = 0;
for (let s = 0; s < N; s += 1000) {
  let t = performance.now();
  await store.batch(Array.from({ length: Math.min(1000, N - s) }, (_, j) => ({ namespace: (s + j) < 100 ? ["users", "u1"] : ["users", `u${2 + ((s + j) % 999)}`], key: `k${s + j}`, value: { text: idText("v", s + j) } })));
  st += performance.now() - t;
  const vs = Array.from({ length: 1000 }, (_, j) => row(data, DIMS, s + j));
  t = performance.now();
  for (let j = 0; j < 1000; j++) raw.addPoint(vs[j]!, s + j);
  rt += performance.now() - t;
}
if (process.env.NOPROF) { console.log(`store ${Math.round(st)} ms raw ${Math.round(rt)} ms ratio ${(rt / st).toFixed(2)}`); process.exit(0); }
const { profile } = await session.post("Profiler.stop");
console.log(`store ${Math.round(st)} ms raw ${Math.round(rt)} ms ratio(store/raw time) ${(st / rt).toFixed(2)}`);
const self = new Map<string, number>();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas!;
profile.samples!.forEach((id, i) => {
  const n = byId.get(id)!;
  const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-1)[0]}:${n.callFrame.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0) / 1000);
});
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${v.toFixed(1)}ms ${k}`).join("\n"));
await store.close();
