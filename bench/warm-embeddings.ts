/**
 * Fills the bench's disk cache of USE-lite vectors for the conversational
 * development sets: `npx tsx bench/warm-embeddings.ts [dev1|dev2|all] [context]`
 * (`context` also embeds the longer previous-turn contexts the 0.x episodes used).
 */
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { contextTexts, loadConversationSet, textsToEmbed, type SetName } from "./lib/conversations-large.js";

const which = process.argv[2] ?? "all";
const sets: SetName[] = which === "all" ? ["dev1", "dev2"] : [which as SetName];
const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
for (const set of sets) {
  for (const c of await loadConversationSet(set, "all")) {
    const t = performance.now();
    await cache.embedDocuments(textsToEmbed(c));
    if (process.argv[3] === "context") await cache.embedDocuments(contextTexts(c));
    await cache.save();
    console.log(`${set} ${c.id}: ${cache.computed} embedded so far, ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
}
