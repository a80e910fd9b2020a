/**
 * How far each shipped query adapter moves a memory away from its own text:
 * the cosine of each fact's adapted vector (the fact searched as a query) with
 * its stored vector, over facts sets A and B. With no adapter it is 1; a
 * duplicate check that compares a memory's own text against a threshold
 * therefore searches with `queryAdapter: false` (docs/retrieval.md, "Scores
 * and duplicate checks").
 *
 *   npx tsx bench/adapter-self-cosine.ts
 */
import { readFileSync } from "node:fs";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { bundledQueryAdapter, QUERY_ADAPTER_KINDS } from "../src/embeddings/query-adapter.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";

const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
for (const file of ["facts-dev-a.json", "facts-dev-b.json"]) {
  const set = JSON.parse(readFileSync(new URL(`./data/${file}`, import.meta.url), "utf8")) as { people: { facts: { text: string }[] }[] };
  const texts = set.people.flatMap((p) => p.facts.map((f) => f.text));
  const vectors = await cache.embedDocuments(texts);
  for (const kind of QUERY_ADAPTER_KINDS) {
    const adapter = bundledQueryAdapter(kind);
    const cos = vectors
      .map((v) => {
        const w = adapter.apply(v);
        let s = 0;
        for (let i = 0; i < v.length; i++) s += v[i]! * w[i]!;
        return s;
      })
      .sort((x, y) => x - y);
    const q = (p: number) => cos[Math.floor(p * (cos.length - 1))]!.toFixed(3);
    const below = cos.filter((c) => c < 0.95).length;
    console.log(`${file} ${kind} adapter: n=${cos.length} self-cosine min ${q(0)} p5 ${q(0.05)} p50 ${q(0.5)} p95 ${q(0.95)} max ${q(1)}; under 0.95: ${below} (${((100 * below) / cos.length).toFixed(0)} %)`);
  }
}
process.exit(0);
