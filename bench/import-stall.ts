/**
 * Repro: the 10k bulk import of bench/preload.ts alone, with a gap detector
 * that logs every event-loop stall over STALL_MS (default 20) with the time
 * and the batch. MAIN_FIRST=1 first runs preload's 1k import with USE-lite on
 * the main thread, as the benchmark does; USERS sets the number of batches.
 *
 * Run: npx tsx bench/import-stall.ts (add node --cpu-prof or --trace-gc to find a stall's cause)
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { userFacts } from "./lib/memory-facts.js";

const USERS = Number(process.env.USERS ?? 50);
const PER_USER = 200;
const STALL_MS = Number(process.env.STALL_MS ?? 20);
const facts = (user: number): string[] => userFacts(user, PER_USER);

const use = new UniversalSentenceEncoderEmbeddings();
const dir = await mkdtemp(join(os.tmpdir(), "bench-stall-"));
const store = new HNSWStore({ path: dir, index: { dims: use.dims, embeddings: use, fields: ["text"] } });
await use.embedQuery("load the model");
if (process.env.MAIN_FIRST) {
  // As bench/preload.ts does first: 1,000 memories embedded on the main thread, in a store of their own
  // (the model then stays loaded on the main thread, and its heap is larger during the import).
  const mainDir = await mkdtemp(join(os.tmpdir(), "bench-stall-main-"));
  const mainStore = new HNSWStore({ path: mainDir, index: { dims: use.dims, embeddings: new UniversalSentenceEncoderEmbeddings({ thread: "main" }), fields: ["text"] } });
  await mainStore.put(["warm"], "up", { text: "load the model on the main thread" });
  for (let u = 0; u < 5; u++) {
    await mainStore.batch(facts(1000 + u).map((text, i) => ({ namespace: ["users", `m${u}`], key: `m${i}`, value: { text }, index: ["text"] })));
  }
  await mainStore.close();
  await rm(mainDir, { recursive: true, force: true });
}
const t0 = performance.now();
let last = performance.now();
const stalls: { at: number; ms: number; batch: number; hr: string }[] = [];
let batch = -1;
const timer = setInterval(() => {
  const now = performance.now();
  if (now - last > STALL_MS) {
    stalls.push({ at: Math.round(now - t0), ms: Math.round(now - last), batch, hr: String(process.hrtime.bigint() / 1000n) });
    // LIVE=1: also at once, between the lines of --trace-gc.
    if (process.env.LIVE) console.log(`-- stall ${Math.round(now - last)} ms (batch ${batch})`);
  }
  last = now;
}, 1);
const h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
for (let u = 0; u < USERS; u++) {
  batch = u;
  const ns = ["users", `u${u}`];
  await store.batch(facts(u).map((text, i) => ({ namespace: ns, key: `m${i}`, value: { text, source: "extractor" }, index: ["text"] })));
}
h.disable();
clearInterval(timer);
console.log(`import ${((performance.now() - t0) / 1000).toFixed(1)} s; p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(1)} ms`);
for (const s of stalls) console.log(`stall ${s.ms} ms ending at +${s.at} ms (batch ${s.batch}) hr ${s.hr}`);
await store.close();
await rm(dir, { recursive: true, force: true });
