// Scratch profile (not committed): one user's search vs number of namespaces.
import type { Operation } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { idText, PrecomputedEmbeddings, randomUnitVectors } from "./lib/vectors.js";
const DIMS = 512, Q = Number(process.env.Q ?? 3000);
const data = randomUnitVectors(100_000, DIMS, 1), queries = randomUnitVectors(Q, DIMS, 2);
const embeddings = new PrecomputedEmbeddings(data, queries, DIMS);
const sizes = (process.env.SIZES ?? "1000,10000,100000").split(",").map(Number);
const stores: [number, HNSWStore][] = [];
for (const namespaces of sizes) {
  const store = new HNSWStore({ index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "vector", embeddingCache: false });
  await store.batch(Array.from({ length: 100 }, (_, i) => ({ namespace: ["users", "u1"], key: `k${i}`, value: { text: idText("v", i) } })));
  for (let s = 1; s < namespaces; s += 1000) {
    const ops: Operation[] = [];
    for (let i = s; i < Math.min(namespaces, s + 1000); i++) ops.push({ namespace: ["users", `o${i}`], key: "k", value: { text: idText("v", i) }, index: false });
    await store.batch(ops);
  }
  stores.push([namespaces, store]);
}
import { PerformanceObserver } from "node:perf_hooks";
const gc: Record<string, { n: number; ms: number }> = {};
let gcOn = false;
new PerformanceObserver((l) => { if (gcOn) for (const e of l.getEntries()) { const k = String((e as any).detail?.kind ?? e.name); (gc[k] ??= { n: 0, ms: 0 }).n++; gc[k]!.ms += e.duration; } }).observe({ entryTypes: ["gc"] });
gcOn = true;
// interleave rounds so load affects all equally
const lat: Record<number, number[]> = {};
const cpu0: Record<number, number> = {};
for (let round = 0; round < 5; round++) for (const [n, store] of stores) {
  const c0 = process.cpuUsage();
  for (let q = 0; q < Q / 5; q++) {
    const qi = round * (Q / 5) + q;
    const t = performance.now();
    await store.search(["users", "u1"], { query: idText("q", qi), limit: 10 });
    (lat[n] ??= []).push(performance.now() - t);
  }
  const c = process.cpuUsage(c0); cpu0[n] = (cpu0[n] ?? 0) + (c.user + c.system) / 1000;
}
for (const [n] of stores) { const s = lat[n]!.slice(50).sort((a, b) => a - b); console.log(n, "p50", s[s.length >> 1]!.toFixed(4), "p90", s[Math.floor(s.length * 0.9)]!.toFixed(4), "cpu/search ms", (cpu0[n]! / Q).toFixed(4)); }
console.log("gc", JSON.stringify(gc), "heapMB", Math.round(process.memoryUsage().heapUsed/2**20));
process.exit(0);
