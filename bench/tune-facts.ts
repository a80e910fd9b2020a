/**
 * The grid the facts-path ranking defaults (src/embeddings/ranking-defaults.ts)
 * were chosen from: `npx tsx bench/tune-facts.ts`. Scores each setting on the
 * TUNE people of both facts development sets only, through a real HNSWStore
 * (bench/lib/facts-eval.ts). SPLIT=heldout runs the named finalists
 * (ONLY=name,name) on the held-out people, to accept or reject them once,
 * never to search a grid. docs/retrieval.md logs what was tried.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import { CachedEmbeddings } from "../src/embeddings/cached-embeddings.js";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { SHIPPED_RANKING, withRanking, type RankingDefaults } from "../src/embeddings/ranking-defaults.js";
import { RERANK_OFF, type RerankSettings } from "../src/store/rank/vector-rerank.js";
import { FactsStore, type FactsMetrics } from "./lib/facts-eval.js";
import { DEV_SETS } from "./lib/facts-bench.js";
import { loadFactsDevSet, type SetPart } from "./lib/facts-sets.js";

const part: SetPart = process.env.SPLIT === "heldout" ? "heldout" : "tune";
const embeddings = new CachedEmbeddings({ embeddings: new UniversalSentenceEncoderEmbeddings() });
const sets = await Promise.all(DEV_SETS.filter((f) => existsSync(new URL(`./data/${f}`, import.meta.url))).map((f) => loadFactsDevSet(f)));
const stores = { hybrid: [] as FactsStore[], vector: [] as FactsStore[] };
for (const set of sets) {
  stores.hybrid.push(await FactsStore.open(set, embeddings));
  if (!process.env.ONLY || process.env.ONLY.includes("vector only")) stores.vector.push(await FactsStore.open(set, embeddings, "vector"));
}

type Setting = { name: string; retrieval?: "vector"; ranking: Partial<RankingDefaults> };
// Round 1 (2026-12-03 15:09–15:22 UTC, load 9–13; tune people of A and B; R@5 / R@10, before = the defaults until then):
//   before                          A 82.4 / 93.0   B 73.7 / 86.8
//   vector only (retrieval)         A 80.0 / 91.4   B 69.9 / 83.4
//   fusion k 1/5/60 × keywordWeight 0.25/1 × signalBoost 0/1 (12 points): every point within ±1.3 of before on both
//   a name counts as a keyword signal only when some fact in scope has it:  A 82.4 / 93.0 (MRR +0.007)  B 73.7 / 86.8 (MRR +0.005)
//   keyword side without question scaffolding (user, someone, kind of, …): no change on either set
//   query embedded without its question words ("does the user have pets?" → "pets"): A 78.9 / 92.6  B 69.2 / 84.8
//   a third fused list, the facts newest first, weight 0.1/0.25/0.5: A 81.9/81.3/80.1  B 74.7/74.0/72.6 (R@5)
//   replaced facts demoted behind their replacement:  A 82.9 / 93.3  B 75.0 / 87.0
//   replacements promoted to the replaced fact's place:  A 86.1 / 94.3  B 76.4 / 89.2   ← finalist
//   promote + names in scope:  A 86.3 / 94.3  B 76.4 / 89.2;  promote + recency 0.1:  A 86.4 / 94.7  B 76.7 / 89.2
// Held out ONCE (SPLIT=heldout, 15:34 UTC, load 14): before A 84.7 / 95.1 / MRR 0.662, B 77.4 / 90.0 / 0.553;
//   demote A 86.1 / 96.3 / 0.684, B 77.8 / 90.2 / 0.584; promote A 85.9 / 95.4 / 0.691, B 79.4 / 90.7 / 0.600;
//   promote + names in scope A 85.9 / 95.4 / 0.701, B 78.9 / 90.7 / 0.605; promote + recency 0.1 A 86.3 / 95.4, B 78.6 / 89.5.
// Adopted: promote (helps both held-out sets). The other levers did not help both and their code was not kept.
const rr = (name: string, r: Partial<RerankSettings>, base: Partial<RankingDefaults> = {}): Setting => ({ name, ranking: { ...base, rerank: { ...RERANK_OFF, ...r } } });
const settings: Setting[] = [
  rr("prf 0.3 m1", { prfBeta: 0.3, prfTop: 1 }),
  rr("prf 0.15 m1", { prfBeta: 0.15, prfTop: 1 }),
  rr("prf 0.5 m1", { prfBeta: 0.5, prfTop: 1 }),
  rr("prf 0.3 m2", { prfBeta: 0.3, prfTop: 2 }),
  rr("fused prf 0.3 m1", { prfBeta: 0.3, prfTop: 1, prfSource: "fused" }),
  rr("fused prf 0.5 m1", { prfBeta: 0.5, prfTop: 1, prfSource: "fused" }),
  rr("fused prf 0.3 m2", { prfBeta: 0.3, prfTop: 2, prfSource: "fused" }),
  rr("fused prf 0.3 m3", { prfBeta: 0.3, prfTop: 3, prfSource: "fused" }),
  rr("shrunk 10 prf 0.3 m1", { centre: "shrunk", shrink: 10, prfBeta: 0.3, prfTop: 1 }),
  { name: "negative last", ranking: { negativeLast: true } },
  rr("negative last prf 0.15 m1", { prfBeta: 0.15, prfTop: 1 }, { negativeLast: true }),
  { name: "gap 1", ranking: { supersededGap: 1 } },
  { name: "gap 2", ranking: { supersededGap: 2 } },
  { name: "gap 4", ranking: { supersededGap: 4 } },
  { name: "shipped", ranking: {} },
  { name: "before", ranking: { superseded: "off" } },

];
if (process.env.GRID) settings.push(...(JSON.parse(process.env.GRID) as Setting[]));
const only = process.env.ONLY?.split(",");
const chosen = only ? settings.filter((s) => only.includes(s.name)) : settings;
if (part === "heldout" && !only) throw new Error("SPLIT=heldout checks finalists only: name them with ONLY=name,name");

const f = (m: FactsMetrics) => `R@5 ${(100 * m.r5).toFixed(1)} R@10 ${(100 * m.r10).toFixed(1)} MRR ${m.mrr.toFixed(3)} P5 ${(100 * m.preload5).toFixed(1)}`;
console.log(`facts tuning on the ${part} people, ${new Date().toISOString()}, load ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}, shipped ${JSON.stringify(SHIPPED_RANKING)}`);
for (const s of chosen) {
  const line = await withRanking(s.ranking, async () => {
    const parts: string[] = [];
    for (let i = 0; i < sets.length; i++) {
      const r = await stores[s.retrieval ?? "hybrid"][i]!.score(part);
      const kinds = Object.entries(r.byKind)
        .filter(([k]) => k !== "unanswerable")
        .map(([k, m]) => `${k.slice(0, 4)} ${(100 * m.r5).toFixed(0)}`)
        .join(" ");
      parts.push(`${sets[i]!.name}: ${f(r.all)} AUC ${r.all.abstainAuc?.toFixed(2) ?? "-"} [${kinds}]`);
    }
    return parts.join(" | ");
  });
  console.log(`${s.name.padEnd(34)} ${line}`);
}
for (const s of [...stores.hybrid, ...stores.vector]) await s.close();
