/**
 * The grid the episode re-ranking defaults (src/episodes/rank.ts) were chosen
 * from: `npx tsx bench/tune-episodes.ts`. Scores each setting on the TUNE
 * split of both development sets (dev1 c0–c3, dev2 d0–d3) only; the held-out
 * splits are reported by `npm run bench:episodes`; SPLIT=heldout runs the
 * same rows there, to check a finalist or two once, never to search a grid.
 * Needs the vectors cached by bench/warm-embeddings.ts.
 */
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import type { EpisodeRankOptions } from "../src/episodes/rank.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { loadConversationSet, type SetName } from "./lib/conversations-large.js";
import { episodeRanker, episodeStore, evaluate, type RankerReport } from "./lib/conversational-eval.js";

const split = process.env.SPLIT === "heldout" ? "heldout" : "tune";
const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
const sets: Array<{ name: SetName; convs: Awaited<ReturnType<typeof loadConversationSet>>; store: Awaited<ReturnType<typeof episodeStore>> }> = [];
for (const name of ["dev1", "dev2"] as const) {
  const convs = await loadConversationSet(name, split);
  sets.push({ name, convs, store: await episodeStore(convs, cache) });
}
const fmt = (r: RankerReport) =>
  `R@10 ${r.all["R@10"].toFixed(1)} R@5 ${r.all["R@5"].toFixed(1)} mh ${r["multi-hop"]["R@10"].toFixed(1)} t ${r.temporal["R@10"].toFixed(1)}`;
const grid: Array<EpisodeRankOptions & { rerank?: boolean; pool?: number }> = [{ rerank: false }, {}];
// Round 1 (k, replyWeight, promptWeight, window, minWords, speakerBoost) chose k 10, reply 0.5, prompt 0, window 2, minWords 3, speaker 1.5.
// Round 2 (timeBoost 1/1.5/2.5, neighbour shares summed or max, reply 0.5/0.8, question scaffolding stripped or not, minWords 3/5):
// sum, timeBoost 2.5, minWords 5; stripping the question lost 7 points on dev2 and was dropped.
// Round 3 (minWords 5/8, speakerBoost 1.5/2, reply 0.5/0.65, prompt 0/0.15): the defaults (5, 2, 0.65, 0.15).
// Round 4, per-session aggregation (a turn also earns 0.1 or 0.25 × its session's total) and pool 40/80: session
// aggregation helped dev2 (+5 tune, +1.6 held out) but not dev1 (−0.4 tune, +0.1 R@10 / −0.3 R@5 held out), so it is
// not a default; the pool stays max(4 × limit, 40). Put the settings of a next round here.
const rows: Array<[number, string]> = [];
for (const options of grid) {
  const rs = await Promise.all(sets.map((s) => evaluate(s.convs, episodeRanker(s.store, options))));
  const mean = (rs[0]!.all["R@10"] + rs[1]!.all["R@10"]) / 2;
  rows.push([mean, `${mean.toFixed(1)} | dev1 ${fmt(rs[0]!)} | dev2 ${fmt(rs[1]!)} | ${JSON.stringify(options)}`]);
}
await cache.save();
console.log(`split ${split}, mean R@10 | per set\n` + rows.sort((a, b) => b[0] - a[0]).map((r) => r[1]).join("\n"));
