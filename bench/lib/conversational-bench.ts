import type { Embeddings } from "@langchain/core/embeddings";
import type { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { DiskCachedEmbeddings } from "./disk-cache.js";
import { loadLargeConversations, textsToEmbed } from "./conversations-large.js";
import { baselineStore, episodeRanker, episodeStore, evaluate, storeRanker, table, type RankerReport } from "./conversational-eval.js";

/**
 * The conversational benchmark (bench/data/conversations-large.json): evidence
 * recall at 5/10/20 per question kind for the baseline (one item per
 * turn, `"<speaker>: <text>"`) under keyword, vector and hybrid retrieval,
 * and for episodes as the package writes them (one vector per turn) and
 * searches them (`searchEpisodes`). Reports the split in `BENCH_SPLIT`
 * (`heldout` by default; `tune` is what the defaults were tuned on).
 */
export async function runConversationalBench(embedder: Embeddings): Promise<{ split: string; turns: number; questions: number; reports: Record<string, RankerReport>; seconds: number }> {
  const t0 = performance.now();
  const split = (process.env.BENCH_SPLIT ?? "heldout") as "tune" | "heldout" | "all";
  const convs = await loadLargeConversations(split);
  const cache = await new DiskCachedEmbeddings(embedder, new URL("../results/use-lite-vectors.json", import.meta.url)).load();
  // Embed everything once (the disk cache makes re-runs cheap).
  for (const c of convs) await cache.embedDocuments([...textsToEmbed(c), ...c.questions.map((q) => q.q)]);
  await cache.save();

  const reports: Record<string, RankerReport> = {};
  const stores: HNSWStore[] = [];
  for (const mode of ["keyword", "vector", "hybrid"] as const) {
    const store = await baselineStore(convs, cache, mode);
    stores.push(store);
    reports[`turn items, ${mode}${mode === "hybrid" ? " (today's default)" : ""}`] = await evaluate(convs, storeRanker(store));
  }
  for (const mode of ["keyword", "vector", "hybrid"] as const) {
    const store = await episodeStore(convs, cache, mode);
    stores.push(store);
    reports[`episodes (one vector per turn), ${mode}, store order`] = await evaluate(convs, episodeRanker(store, { rerank: false }));
    if (mode === "hybrid") reports["**episodes, searchEpisodes (new default)**"] = await evaluate(convs, episodeRanker(store));
  }
  for (const s of stores) await s.close();
  const turns = convs.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
  const questions = convs.reduce((n, c) => n + c.questions.length, 0);
  console.log(`\nConversational recall, split "${split}" (${convs.length} conversations, ${turns} turns, ${questions} questions), evidence R@5 / R@10 / R@20:\n`);
  console.log(table(reports));
  return { split, turns, questions, reports, seconds: (performance.now() - t0) / 1000 };
}
