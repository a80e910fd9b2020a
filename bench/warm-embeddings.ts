/** Fills the bench's disk cache of USE-lite vectors for the conversational benchmark: `npx tsx bench/warm-embeddings.ts [tune|heldout|all]`. */
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { loadLargeConversations, textsToEmbed } from "./lib/conversations-large.js";

const split = (process.argv[2] ?? "all") as "tune" | "heldout" | "all";
const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
for (const c of await loadLargeConversations(split)) {
  const t = performance.now();
  await cache.embedDocuments(textsToEmbed(c));
  await cache.embedDocuments(c.questions.map((q) => q.q));
  await cache.save();
  console.log(`${c.id}: ${cache.computed} embedded so far, ${((performance.now() - t) / 1000).toFixed(0)} s`);
}
