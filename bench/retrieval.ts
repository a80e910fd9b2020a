/**
 * Retrieval-quality evaluation: `npm run bench:retrieval`.
 *
 * Ranks two hand-written sets (bench/data/) with keyword (BM25), vector
 * (USE-lite cosine) and hybrid (weighted RRF) ranking, composed exactly as
 * the store composes them: KeywordIndex restricted to the namespace, cosine
 * over the namespace, hybridRank over the top 20 of each. Also measures model
 * load time and embedding throughput. Prints a table and writes
 * bench/results/retrieval.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { hybridRank, type HybridRankOptions } from "../src/embeddings/fusion.js";
import { KeywordIndex, type KeywordIndexOptions } from "../src/embeddings/keyword-index.js";
import {
  loadUniversalSentenceEncoder,
  UniversalSentenceEncoderEmbeddings,
} from "../src/embeddings/universal-sentence-encoder.js";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { CachedEmbeddings } from "../src/embeddings/cached-embeddings.js";
import { fmt, rankMetrics, type RankMetrics } from "./lib/metrics.js";
import { runConversationalBench } from "./lib/conversational-bench.js";
import { loadConversations, loadFacts, sharesContentWord, type EvalQuestion, type EvalSet } from "./lib/retrieval-data.js";
import { printFactsBench, runFactsBench } from "./lib/facts-bench.js";

const CANDIDATES = 20;

// ---- model load and throughput ------------------------------------------------
const t0 = performance.now();
await loadUniversalSentenceEncoder();
const loadMs = performance.now() - t0;
const embedder = new UniversalSentenceEncoderEmbeddings();
const t1 = performance.now();
await embedder.embedQuery("warm up the WebAssembly kernels");
const firstEmbedMs = performance.now() - t1;

// ---- the facts path (smoke set + development sets, tune and held-out apart; each development
// set as written, in the extractor's wording, bench/lib/extractor-wording.ts, and in the first
// person, bench/lib/first-person-wording.ts) -------------
// `--facts` runs only this section.
const factsPath = await runFactsBench(new CachedEmbeddings({ embeddings: embedder }));
printFactsBench(factsPath);
if (process.argv.includes("--facts")) {
  await mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await writeFile(new URL("./results/retrieval-facts.json", import.meta.url), JSON.stringify({ date: new Date().toISOString(), load: os.loadavg(), factsPath }, null, 2) + "\n");
  process.exit(0);
}

const facts = await loadFacts();
const conversations = await loadConversations();
const sets = [facts, conversations];
const allTexts = sets.flatMap((s) => s.docs.map((d) => d.text));

async function perSecond(n: number, run: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await run();
  return (n * 1000) / (performance.now() - t);
}
const singleTexts = allTexts.slice(0, 48);
const oneAtATime = await perSecond(singleTexts.length, async () => {
  for (const t of singleTexts) await embedder.embedQuery(t);
});
const batched: Record<string, number> = {};
for (const batchSize of [8, 16, 32, 64, 128]) {
  const e = new UniversalSentenceEncoderEmbeddings({ batchSize });
  batched[batchSize] = await perSecond(allTexts.length, () => e.embedDocuments(allTexts));
}
const longText = "I spent the afternoon repotting the basil and tidying the shed before it rained. ".repeat(60);
const longMs = await perSecond(1, () => embedder.embedDocuments([longText])).then((r) => 1000 / r);

// ---- embed everything once --------------------------------------------------------
const docVectors = new Map<string, number[]>();
const queryVectors = new Map<string, number[]>();
for (const set of sets) {
  const vs = await embedder.embedDocuments(set.docs.map((d) => d.text));
  set.docs.forEach((d, i) => docVectors.set(d.id, vs[i]!));
  for (const q of set.questions) queryVectors.set(q.query, await embedder.embedQuery(q.query));
}

// ---- rankers, composed as the store composes them ---------------------------------------
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

function vectorHits(set: EvalSet, q: EvalQuestion) {
  const qv = queryVectors.get(q.query)!;
  return set.docs
    .filter((d) => d.namespace === q.namespace)
    .map((d) => ({ id: d.id, score: cosine(qv, docVectors.get(d.id)!) }))
    .sort((a, b) => b.score - a.score);
}

function buildIndex(set: EvalSet, options: KeywordIndexOptions): KeywordIndex {
  const index = new KeywordIndex(options);
  for (const d of set.docs) index.add(d.id, [d.text]);
  return index;
}

function keywordHits(set: EvalSet, index: KeywordIndex, q: EvalQuestion, limit = CANDIDATES) {
  const ns = new Set(set.docs.filter((d) => d.namespace === q.namespace).map((d) => d.id));
  return index.search(q.query, { limit, candidates: ns });
}

function evaluate(set: EvalSet, rank: (q: EvalQuestion) => string[]): RankMetrics {
  const ranks = set.questions
    .filter((q) => q.answer !== null)
    .map((q) => {
      const i = rank(q).indexOf(q.answer!);
      return i < 0 ? Infinity : i + 1;
    });
  return rankMetrics(ranks);
}

const keywordSettings: Array<{ name: string; options: KeywordIndexOptions }> = [];
for (const stemming of [false, true]) {
  for (const b of [0, 0.25, 0.5, 0.75, 1]) keywordSettings.push({ name: `bm25 b=${b}${stemming ? " stem" : ""}`, options: { b, stemming } });
}

interface SetReport {
  docs: number;
  questions: number;
  answerable: number;
  noContentWordShared: number;
  keyword: Record<string, RankMetrics>;
  keywordDefault: RankMetrics;
  bestKeyword: { name: string; metrics: RankMetrics };
  vector: RankMetrics;
  hybrid: RankMetrics;
  noAnswer: { meanTopCosineAnswerable: number; meanTopCosineNoAnswer: number; keywordEmptyForNoAnswer: string };
}

const defaultIndexes = new Map(sets.map((s) => [s.name, buildIndex(s, {})]));

function hybridFor(set: EvalSet, options: HybridRankOptions) {
  const index = defaultIndexes.get(set.name)!;
  return (q: EvalQuestion) =>
    hybridRank(
      { query: q.query, vectorHits: vectorHits(set, q).slice(0, CANDIDATES), keywordHits: keywordHits(set, index, q) },
      options,
    ).map((h) => h.id);
}

const report: Record<string, SetReport> = {};
for (const set of sets) {
  const keyword: Record<string, RankMetrics> = {};
  for (const s of keywordSettings) {
    const index = buildIndex(set, s.options);
    keyword[s.name] = evaluate(set, (q) => keywordHits(set, index, q, 1000).map((h) => h.id));
  }
  const [bestName, best] = Object.entries(keyword).sort((a, b) => b[1].mrr - a[1].mrr || b[1].top1 - a[1].top1)[0]!;
  const index = defaultIndexes.get(set.name)!;
  const answerable = set.questions.filter((q) => q.answer !== null);
  const unanswerable = set.questions.filter((q) => q.answer === null);
  const topCos = (qs: EvalQuestion[]) => qs.reduce((s, q) => s + vectorHits(set, q)[0]!.score, 0) / (qs.length || 1);
  report[set.name] = {
    docs: set.docs.length,
    questions: set.questions.length,
    answerable: answerable.length,
    noContentWordShared: answerable.filter((q) => !sharesContentWord(set, q)).length,
    keyword,
    keywordDefault: evaluate(set, (q) => keywordHits(set, index, q, 1000).map((h) => h.id)),
    bestKeyword: { name: bestName, metrics: best },
    vector: evaluate(set, (q) => vectorHits(set, q).map((h) => h.id)),
    hybrid: evaluate(set, hybridFor(set, {})),
    noAnswer: {
      meanTopCosineAnswerable: topCos(answerable),
      meanTopCosineNoAnswer: topCos(unanswerable),
      keywordEmptyForNoAnswer: `${unanswerable.filter((q) => keywordHits(set, index, q).length === 0).length}/${unanswerable.length}`,
    },
  };
}

// ---- the same three rankings through HNSWStore (in memory), as an agent sees them ------------
const shared = new CachedEmbeddings({ embeddings: embedder });
async function evaluateStore(set: EvalSet, retrieval: "vector" | "keyword" | "hybrid"): Promise<RankMetrics> {
  const store = new HNSWStore({ index: { dims: 512, embeddings: shared, fields: ["text"] }, retrieval });
  await store.batch(set.docs.map((d) => ({ namespace: [d.namespace], key: d.id, value: { text: d.text } })));
  const ranks: number[] = [];
  for (const q of set.questions) {
    if (q.answer === null) continue;
    const items = await store.search([q.namespace], { query: q.query, limit: 10 });
    const i = items.findIndex((it) => it.key === q.answer);
    ranks.push(i < 0 ? Infinity : i + 1);
  }
  await store.close();
  return rankMetrics(ranks);
}
const viaStore: Record<string, Record<string, RankMetrics>> = {};
for (const set of sets) {
  viaStore[set.name] = {};
  for (const mode of ["keyword", "vector", "hybrid"] as const) viaStore[set.name]![mode] = await evaluateStore(set, mode);
}

// ---- fusion tuning grid (the defaults in fusion.ts were chosen from this) -----------------
const grid: Array<{ options: HybridRankOptions; facts: RankMetrics; conversations: RankMetrics }> = [];
for (const k of [1, 2, 5, 10, 30, 60]) {
  for (const keywordWeight of [0, 0.1, 0.25, 0.5, 0.75, 1]) {
    for (const signalBoost of [0, 0.25, 0.5, 1, 2]) {
      const options = { k, keywordWeight, signalBoost };
      grid.push({ options, facts: evaluate(facts, hybridFor(facts, options)), conversations: evaluate(conversations, hybridFor(conversations, options)) });
    }
  }
}
// BM25 length normalisation under the default fusion.
const bSweep: Record<string, { facts: RankMetrics; conversations: RankMetrics }> = {};
for (const b of [0, 0.25, 0.5, 0.75, 1]) {
  const saved = new Map(defaultIndexes);
  for (const set of sets) defaultIndexes.set(set.name, buildIndex(set, { b }));
  bSweep[`b=${b}`] = { facts: evaluate(facts, hybridFor(facts, {})), conversations: evaluate(conversations, hybridFor(conversations, {})) };
  for (const [name, index] of saved) defaultIndexes.set(name, index);
}
const meetsTargets = (g: (typeof grid)[number]) =>
  g.facts.mrr >= report.facts!.vector.mrr &&
  g.facts.top3 >= report.facts!.vector.top3 &&
  g.conversations.mrr >= report.conversations!.bestKeyword.metrics.mrr;
const score = (g: (typeof grid)[number]) => g.facts.mrr + g.conversations.mrr;
const ranked = [...grid].sort((a, b) => score(b) - score(a));

// ---- KeywordIndex at 100k documents (synthetic text, Zipf-like word use) ----------------------
const vocab = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);
let seed = 42;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const word = () => vocab[Math.floor(vocab.length * rand() ** 3)]!;
const big = new KeywordIndex();
const tAdd = performance.now();
for (let i = 0; i < 100_000; i++) big.add(`doc${i}`, [Array.from({ length: 8 + Math.floor(rand() * 30) }, word).join(" ")]);
const addMs = performance.now() - tAdd;
const queries = Array.from({ length: 200 }, () => `${word()} ${word()} ${word()} ${vocab[Math.floor(rand() * vocab.length)]}`);
const tSearch = performance.now();
for (const q of queries) big.search(q, { limit: 10 });
const searchMs = (performance.now() - tSearch) / queries.length;
const restricted = new Set(Array.from({ length: 50 }, (_, i) => `doc${i * 7}`));
const tRestricted = performance.now();
for (const q of queries) big.search(q, { limit: 10, candidates: restricted });
const restrictedMs = (performance.now() - tRestricted) / queries.length;
const keywordScale = { docs: big.size, addMs, meanSearchMs: searchMs, meanSearchMsWith50Candidates: restrictedMs };

// ---- output -----------------------------------------------------------------------
const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
console.log(`\nRetrieval quality (${machine})\n`);
console.log("| set | ranker | top-1 | top-3 | MRR |");
console.log("|---|---|---|---|---|");
for (const set of sets) {
  const r = report[set.name]!;
  const rows: Array<[string, RankMetrics]> = [
    ["keyword (BM25, default)", r.keywordDefault],
    [`keyword best (${r.bestKeyword.name})`, r.bestKeyword.metrics],
    ["vector (USE-lite)", r.vector],
    ["hybrid (default)", r.hybrid],
  ];
  for (const [name, m] of rows) console.log(`| ${set.name} (${r.answerable} q) | ${name} | ${fmt(m.top1)} | ${fmt(m.top3)} | ${fmt(m.mrr)} |`);
}
console.log("\nThrough HNSWStore (search limit 10; should match the component rows above):");
console.log("| set | retrieval | top-1 | top-3 | MRR |");
console.log("|---|---|---|---|---|");
for (const [setName, modes] of Object.entries(viaStore)) {
  for (const [mode, m] of Object.entries(modes)) console.log(`| ${setName} | ${mode} | ${fmt(m.top1)} | ${fmt(m.top3)} | ${fmt(m.mrr)} |`);
}
for (const set of sets) {
  const r = report[set.name]!;
  console.log(
    `\n${set.name}: ${r.docs} docs, ${r.questions} questions (${r.questions - r.answerable} with no answer), ` +
      `${r.noContentWordShared}/${r.answerable} answerable share no content word with their answer; ` +
      `top cosine answerable ${fmt(r.noAnswer.meanTopCosineAnswerable)} vs no-answer ${fmt(r.noAnswer.meanTopCosineNoAnswer)}; ` +
      `BM25 empty for ${r.noAnswer.keywordEmptyForNoAnswer} no-answer questions`,
  );
  console.log(`  keyword settings (MRR): ${Object.entries(r.keyword).map(([n, m]) => `${n}=${fmt(m.mrr)}`).join(", ")}`);
}
console.log("\nFusion grid, best 12 by facts MRR + conversations MRR (* = meets all targets):");
for (const g of ranked.slice(0, 12)) {
  console.log(
    `  ${meetsTargets(g) ? "*" : " "} ${JSON.stringify(g.options)} facts top1/top3/MRR ${fmt(g.facts.top1)}/${fmt(g.facts.top3)}/${fmt(g.facts.mrr)}` +
      ` conversations ${fmt(g.conversations.top1)}/${fmt(g.conversations.top3)}/${fmt(g.conversations.mrr)}`,
  );
}
console.log(`  ${grid.filter(meetsTargets).length}/${grid.length} grid points meet all targets`);
console.log("\nHybrid (default fusion) by BM25 b, MRR facts / conversations:");
for (const [name, m] of Object.entries(bSweep)) console.log(`  ${name}: ${fmt(m.facts.mrr)} / ${fmt(m.conversations.mrr)} (conversations top-3 ${fmt(m.conversations.top3)})`);
console.log(
  `\nUSE-lite: load ${loadMs.toFixed(0)} ms, first embedding ${firstEmbedMs.toFixed(0)} ms, one at a time ${oneAtATime.toFixed(0)}/s, ` +
    `batched ${Object.entries(batched).map(([b, r]) => `${b}: ${r.toFixed(0)}/s`).join(", ")}; ` +
    `a ${longText.length}-char text ${longMs.toFixed(0)} ms`,
);
console.log(
  `KeywordIndex: ${keywordScale.docs} docs added in ${addMs.toFixed(0)} ms; search (4 words, limit 10) ${searchMs.toFixed(2)} ms mean, ` +
    `${restrictedMs.toFixed(2)} ms restricted to 50 candidates`,
);

const f = report.facts!;
const c = report.conversations!;
const sf = viaStore.facts!;
const sc = viaStore.conversations!;
const targets = {
  storeFactsVectorTop3AtLeast0_9: sf.vector!.top3 >= 0.9,
  storeFactsHybridAtLeastVector: sf.hybrid!.top3 >= sf.vector!.top3 && sf.hybrid!.mrr >= sf.vector!.mrr,
  storeConversationsHybridAtLeastBestKeyword: sc.hybrid!.mrr >= c.bestKeyword.metrics.mrr && sc.hybrid!.top3 >= c.bestKeyword.metrics.top3,
  factsVectorTop3AtLeast0_9: f.vector.top3 >= 0.9,
  factsHybridAtLeastVector: f.hybrid.top3 >= f.vector.top3 && f.hybrid.mrr >= f.vector.mrr,
  conversationsHybridAtLeastBestKeyword: c.hybrid.mrr >= c.bestKeyword.metrics.mrr && c.hybrid.top3 >= c.bestKeyword.metrics.top3,
  halfShareNoContentWord: f.noContentWordShared + c.noContentWordShared >= (f.answerable + c.answerable) / 2,
};
console.log("\nTargets:", targets);

// ---- the large conversational set: episodes vs turn items (bench/lib/conversational-bench.ts) ----
const conversational = await runConversationalBench(embedder);

await mkdir(new URL("./results/", import.meta.url), { recursive: true });
await writeFile(
  new URL("./results/retrieval.json", import.meta.url),
  JSON.stringify(
    {
      machine,
      date: new Date().toISOString(),
      candidatesPerRanker: CANDIDATES,
      model: { id: embedder.model, loadMs, firstEmbedMs, oneAtATimePerSecond: oneAtATime, batchedPerSecond: batched, longTextChars: longText.length, longTextMs: longMs },
      sets: report,
      viaStore,
      keywordScale,
      fusionGrid: ranked,
      hybridByBm25B: bSweep,
      targets,
      factsPath,
      conversational,
    },
    null,
    2,
  ) + "\n",
);
console.log("wrote bench/results/retrieval.json");
