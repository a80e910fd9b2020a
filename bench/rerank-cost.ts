/**
 * What the re-ranking alone costs per search: `npx tsx bench/rerank-cost.ts`.
 * Takes the candidates searchEpisodes would re-rank (the hybrid and the
 * vector-only top 80 of 100 dev1 tune questions, and the turns ±2 around
 * them) once, then times `rerankEpisodes` over all of them with the defaults
 * and with round 7's rules off (`collapseRepeats: false, bridgeWeight: 0`),
 * 20 rounds, which one first alternating; prints the median per search.
 * No store and no embedding inside the timed part. Needs the vectors cached by
 * bench/warm-embeddings.ts.
 */
import os from "node:os";
import type { SearchItem } from "@langchain/langgraph-checkpoint";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { rerankEpisodes, type EpisodeRankOptions } from "../src/episodes/rank.js";
import { episodeKey, toEpisode, type Episode } from "../src/episodes/episode.js";
import type { MemorySearchOperation } from "../src/store/operations.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { loadConversationSet } from "./lib/conversations-large.js";
import { episodeStore } from "./lib/conversational-eval.js";

const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
const convs = await loadConversationSet("dev1", "tune");
const store = await episodeStore(convs, cache);
const cases: Array<{ q: string; hits: Episode[]; vec: Episode[]; around: Map<string, Episode> }> = [];
for (const c of convs) {
  const byKey = new Map((await store.search([c.id], { limit: 10_000 })).map((x) => [x.key, toEpisode(x)!] as const));
  for (const q of c.questions.slice(0, 25)) {
    const ops: MemorySearchOperation[] = [{ namespacePrefix: [c.id], query: q.q, limit: 80, offset: 0 }, { namespacePrefix: [c.id], query: q.q, limit: 80, offset: 0, retrieval: "vector" }];
    const [h, v] = (await store.batch(ops)) as SearchItem[][];
    const hits = h!.map((x) => toEpisode(x)!);
    const vec = v!.map((x) => toEpisode(x)!);
    const around = new Map<string, Episode>();
    for (const e of [...hits, ...vec]) for (let d = -2; d <= 2; d++) { const e2 = byKey.get(episodeKey(e.threadId, e.turn + d)); if (e2) around.set(e2.key, e2); }
    cases.push({ q: q.q, hits, vec, around });
  }
}
await store.close();
const run = (o: EpisodeRankOptions) => {
  const t = performance.now();
  for (const x of cases) rerankEpisodes(x.q, x.hits, 5, o, x.around, [{ hits: x.vec, weight: 0.5 }]);
  return (performance.now() - t) / cases.length;
};
const off = { collapseRepeats: false, bridgeWeight: 0 };
for (let i = 0; i < 3; i++) (run({}), run(off));
const now: number[] = [];
const before: number[] = [];
for (let i = 0; i < 20; i++) {
  if (i % 2) (now.push(run({})), before.push(run(off)));
  else (before.push(run(off)), now.push(run({})));
}
const med = (x: number[]) => [...x].sort((p, q) => p - q)[x.length >> 1]!;
console.log(`rerankEpisodes per search (limit 5, two lists of 80 and their neighbours, ${cases.length} questions; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}, ${new Date().toISOString().slice(0, 16)} UTC):`);
console.log(`defaults ${med(now).toFixed(2)} ms, collapseRepeats: false + bridgeWeight: 0 ${med(before).toFixed(2)} ms`);
