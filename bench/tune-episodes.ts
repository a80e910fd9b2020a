/**
 * The grid the episode re-ranking defaults (src/episodes/rank.ts) were chosen
 * from, on the tune split only: `npx tsx bench/tune-episodes.ts` (CONVS=c0,c1,c2
 * by default). Needs the vectors cached by bench/warm-embeddings.ts.
 */
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { loadLargeConversations } from "./lib/conversations-large.js";
import { episodeRanker, episodeStore, evaluate } from "./lib/conversational-eval.js";
const ids = (process.env.CONVS ?? "c0,c1,c2").split(",");
if (ids.some((id) => Number(id.slice(1)) >= 4)) throw new Error("tune on the tune split (c0-c3) only");
const convs = (await loadLargeConversations("all")).filter((c) => ids.includes(c.id));
const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
const store = await episodeStore(convs, cache, "hybrid");
const rows: string[] = [];
for (const k of [1, 3, 10]) for (const timeBoost of [1.3, 1.6, 2.5]) for (const sessionDecay of [1, 0.9, 0.75]) {
  const r = await evaluate(convs, episodeRanker(store, { k, timeBoost, sessionDecay }));
  rows.push(`${(r.all["R@10"]).toFixed(1)} ${(r.all["R@5"]).toFixed(1)} ${(r.all["R@20"]).toFixed(1)} mh ${r["multi-hop"]["R@10"].toFixed(1)} t ${r.temporal["R@10"].toFixed(1)} k=${k} boost=${timeBoost} decay=${sessionDecay}`);
}
const r = await evaluate(convs, episodeRanker(store, { rerank: false }));
rows.push(`${(r.all["R@10"]).toFixed(1)} ${(r.all["R@5"]).toFixed(1)} ${(r.all["R@20"]).toFixed(1)} mh ${r["multi-hop"]["R@10"].toFixed(1)} store order`);
console.log(rows.sort().reverse().join("\n"));
