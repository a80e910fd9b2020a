import type { Embeddings } from "@langchain/core/embeddings";
import type { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { contextTexts, loadConversationSet, textsToEmbed, type SetName } from "./conversations-large.js";
import { baselineStore, episodeRanker, episodeStore, evaluate, LEGACY_RANK, legacyEpisodeStore, ROUND5_DEFAULTS, ROUND6_DEFAULTS, storeRanker, table, type RankerReport } from "./conversational-eval.js";

/**
 * Recall on one development set and split: the store's default search over
 * plain turn items, episodes as the previous release indexed and re-ranked
 * them (two vectors per turn), and episodes as recorded and searched now,
 * each with and without re-ranking. `embeddings` should be the disk cache.
 */
export async function recallReport(set: SetName, split: "tune" | "heldout", embeddings: Embeddings & { embedDocuments(t: string[]): Promise<number[][]> }, legacy: boolean): Promise<{ text: string; reports: Record<string, RankerReport> }> {
  const convs = await loadConversationSet(set, split);
  for (const c of convs) await embeddings.embedDocuments(legacy ? [...textsToEmbed(c), ...contextTexts(c)] : textsToEmbed(c));
  const reports: Record<string, RankerReport> = {};
  const stores: HNSWStore[] = [];
  const plain = await baselineStore(convs, embeddings, "hybrid");
  stores.push(plain);
  reports["plain turn items, store default search"] = await evaluate(convs, storeRanker(plain));
  if (legacy) {
    const before = await legacyEpisodeStore(convs, embeddings);
    stores.push(before);
    reports["before: turn + context vectors, previous re-ranking"] = await evaluate(convs, episodeRanker(before, LEGACY_RANK));
    reports["before, `rerank: false`"] = await evaluate(convs, episodeRanker(before, { rerank: false }));
  }
  const now = await episodeStore(convs, embeddings);
  stores.push(now);
  reports["**searchEpisodes defaults (one vector per turn)**"] = await evaluate(convs, episodeRanker(now));
  reports["previous defaults (repeats kept, no name bridging)"] = await evaluate(convs, episodeRanker(now, ROUND6_DEFAULTS));
  reports["older defaults (one hybrid search, pool 80)"] = await evaluate(convs, episodeRanker(now, { ...ROUND6_DEFAULTS, ...ROUND5_DEFAULTS }));
  reports["defaults, `rerank: false`"] = await evaluate(convs, episodeRanker(now, { rerank: false }));
  for (const s of stores) await s.close();
  const turns = convs.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
  const questions = convs.reduce((n, c) => n + c.questions.length, 0);
  const head = `${set} ${split} (${convs.map((c) => c.id).join(",")}: ${turns} turns, ${questions} questions), evidence R@5 / R@10 / R@20`;
  return { text: `\n${head}\n\n${table(reports)}\n`, reports };
}
