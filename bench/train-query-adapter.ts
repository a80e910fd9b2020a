/**
 * Trains a low-rank query-side adapter for USE-lite on the facts development
 * sets and scores it through the real store: `npx tsx bench/train-query-adapter.ts`.
 *
 * q' = normalise(q + U·(Vᵀq)) (bench/lib/query-adapter.ts; BIAS=1 adds a learnt
 * bias: normalise(q + U·(Vᵀq) + b)). Training pairs are
 * (question, its answer facts) of the TUNE people only; the other facts of the
 * same person are the negatives: a softmax over the person's facts at
 * temperature TAU, the answers sharing the target, L2 weight decay LAMBDA on U
 * and V, full-batch Adam, V initialised from a seeded generator and U at zero
 * (so training starts from the unchanged embedder). Deterministic: the same
 * vectors and settings give the same weights.
 *
 * Reported (the rule in docs/retrieval.md: a default must help the held-out
 * part of both sets, and training on one set must not hurt the other):
 *   1. trained on A-tune  → A held out, B held out
 *   2. trained on B-tune  → B held out, A held out
 *   3. trained on A+B tune → both held out
 * each through a real HNSWStore (bench/lib/facts-eval.ts) whose embedder
 * adapts `embedQuery` only, against the unchanged embedder in the same run.
 *
 * XVAL=1 chooses settings without the held-out people and across sets: it
 * trains on A-tune and scores B-tune through the store, and the reverse; each
 * setting may be a comma list (RANK=16,32,64), every combination one row.
 * RETRIEVAL=vector scores stores that rank by the vector side alone (default:
 * the store's hybrid ranking); FUSIONS (a JSON list of hybridRank options)
 * scores each pair of XVAL adapters once per fusion variant, and SUPERSEDED
 * (promote,demote,off) once per rule for replaced facts.
 * VAL=1 trains on half of each set's tune people and scores plain cosine R@5
 * on the other half.
 * Settings: RANK (32), TAU (0.05), LAMBDA (0.1), EPOCHS (100), LR (0.01), SEED (7), BIAS (0);
 * hard negatives (bench/lib/adapter-training.ts): OTHER_NEG (0: the k nearest
 * facts of other tune people of the same set on the answer's topic), NEAR_MARGIN
 * (0: off; a cosine margin over the NEAR_K (3) nearest wrong facts of the person,
 * weight NEAR_WEIGHT (1)).
 * Vectors come from the bench cache (bench/results/use-lite-vectors.json).
 * TRAIN_C=1 adds the training-only facts set C; TRAIN_D=1 the training-only set D
 * (bench/data/facts-dev-d.json, same format, every person "tune"); TRAIN_EP=1 (or dev1 / dev2) adds the
 * tune conversations of the conversational sets (rows: every turn of the conversation,
 * answers: the evidence turns).
 * WORDING=both trains on every set twice, as written and in the extractor's wording
 * (bench/lib/extractor-wording.ts: "User lives in Lisbon.", questions about "the
 * user"; the same questions and answers), and scores every set in both wordings;
 * WORDING=all trains on every set three times: as written, in the extractor's wording
 * and in the first person (bench/lib/first-person-wording.ts: the extractor's facts,
 * questions asked by the person: "where do I live?", the way the preload searches with
 * the user's last message); WORDING=original (the default but for ADAPTER=facts) trains
 * on the sets as written. Every run scores all three wordings. Training stays
 * deterministic (seeded V, full batch, the examples in a fixed order: each set as
 * written, then its extractor-wording view, then its first-person view).
 *
 * The package ships two adapters, one per kind of memory a search looks in
 * (src/embeddings/query-adapter.ts); ADAPTER picks one's recipe, which the
 * settings above may still override:
 *   ADAPTER=facts     set C added (TRAIN_C=1), weight decay 0.03 (LAMBDA=0.03) and both
 *                     wordings (WORDING=both), chosen by XVAL=1 (docs/retrieval.md):
 *                     src/embeddings/use-lite-facts-query-adapter.weights.ts
 *   ADAPTER=episodes  the settings above as they are, no extra set:
 *                     src/embeddings/use-lite-episodes-query-adapter.weights.ts
 * WRITE=1 (with ADAPTER) writes that adapter, trained on both sets' tune parts (and
 * the sets the recipe adds), to its file: `ADAPTER=facts WRITE=1 npx tsx
 * bench/train-query-adapter.ts` reproduces the shipped facts weights.
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { FactsStore, type FactsMetrics } from "./lib/facts-eval.js";
import { DEV_SETS } from "./lib/facts-bench.js";
import { extractorWording } from "./lib/extractor-wording.js";
import { firstPersonWording } from "./lib/first-person-wording.js";
import { loadFactsDevSet, peopleOf, type FactsDevSet, type SetPart } from "./lib/facts-sets.js";
import type { QueryAdapter } from "../src/embeddings/query-adapter.js";
import type { HybridRankOptions } from "../src/embeddings/fusion.js";
import { RANKING, SHIPPED_RANKING, withRanking } from "../src/embeddings/ranking-defaults.js";
import { AdaptedQueryEmbeddings } from "./lib/query-adapter.js";
import { cosineR5, episodeExamples, examples as examplesOf, normalise, train, type Example, type TrainSettings } from "./lib/adapter-training.js";
import { loadConversationSet } from "./lib/conversations-large.js";

const num = (name: string, d: number) => (process.env[name] === undefined ? Number(d) : Number(process.env[name]!.split(",")[0]));
/** A comma list of values for XVAL=1 (one value otherwise). */
const list = (name: string, d: number) => (process.env[name] === undefined ? [d] : process.env[name]!.split(",").map(Number));
/** ADAPTER: which shipped adapter's recipe (and, with WRITE=1, file) this run uses. */
const ADAPTER = process.env.ADAPTER;
if (ADAPTER !== undefined && ADAPTER !== "facts" && ADAPTER !== "episodes") throw new Error(`ADAPTER must be facts or episodes, got ${ADAPTER}`);
if (process.env.WRITE && !ADAPTER) throw new Error("WRITE=1 needs ADAPTER=facts or ADAPTER=episodes (which weights file to write)");
const DEFAULTS: Required<TrainSettings> = { rank: 32, tau: 0.05, lambda: ADAPTER === "facts" ? 0.03 : 0.1, epochs: 100, lr: 0.01, seed: 7, otherNegatives: 0, nearMargin: 0, nearK: 3, nearWeight: 1, bias: 0 };
const ENV: Record<keyof TrainSettings, string> = {
  rank: "RANK", tau: "TAU", lambda: "LAMBDA", epochs: "EPOCHS", lr: "LR", seed: "SEED",
  otherNegatives: "OTHER_NEG", nearMargin: "NEAR_MARGIN", nearK: "NEAR_K", nearWeight: "NEAR_WEIGHT", bias: "BIAS",
};
/** Settings as the weights file and the log name them: `bias` only when on (files written before it existed stay the same). */
const shown = (s: TrainSettings) => JSON.stringify(s.bias ? s : { ...s, bias: undefined });
const settings = Object.fromEntries(Object.entries(ENV).map(([k, e]) => [k, num(e, DEFAULTS[k as keyof TrainSettings])])) as unknown as TrainSettings;
const DIMS = 512;
const USE_LITE_MODEL = new UniversalSentenceEncoderEmbeddings().model;
const WEIGHTS_FILE = new URL(`../src/embeddings/use-lite-${ADAPTER}-query-adapter.weights.ts`, import.meta.url);
/** The weights module's export: USE_LITE_FACTS_QUERY_ADAPTER or USE_LITE_EPISODES_QUERY_ADAPTER. */
const WEIGHTS_EXPORT = `USE_LITE_${ADAPTER?.toUpperCase()}_QUERY_ADAPTER`;

const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
const sets = await Promise.all(DEV_SETS.map((f) => loadFactsDevSet(f)));
/** TRAIN_C=1 (ADAPTER=facts: unless TRAIN_C=0): the training-only set C (bench/data/facts-dev-c.json, every person "tune") joins every training. */
const trainC = process.env.TRAIN_C === undefined ? ADAPTER === "facts" : process.env.TRAIN_C !== "0";
const setC = trainC ? await loadFactsDevSet("facts-dev-c.json") : undefined;
/** TRAIN_D=1: the training-only set D (bench/data/facts-dev-d.json, every person "tune") joins every training, after C. */
const setD = process.env.TRAIN_D && process.env.TRAIN_D !== "0" ? await loadFactsDevSet("facts-dev-d.json") : undefined;
/** The training-only sets of this run, in training order. */
const extraSets = [setC, setD].filter((x): x is FactsDevSet => x !== undefined);
/** WORDING=both (ADAPTER=facts: unless WORDING=original or all): every training set also in the extractor's wording; all: and in the first person. */
const WORDING = process.env.WORDING ?? (ADAPTER === "facts" ? "both" : "original");
if (WORDING !== "both" && WORDING !== "original" && WORDING !== "all") throw new Error(`WORDING must be both, all or original, got ${WORDING}`);
/** A set's extractor-wording and first-person views, each made once. */
const views = new Map<FactsDevSet, FactsDevSet>();
const viewOf = (set: FactsDevSet) => views.get(set) ?? views.set(set, extractorWording(set)).get(set)!;
const firstViews = new Map<FactsDevSet, FactsDevSet>();
const firstOf = (set: FactsDevSet) => firstViews.get(set) ?? firstViews.set(set, firstPersonWording(set, viewOf(set))).get(set)!;
/** The sets a training on `set` uses: itself, with WORDING=both its extractor-wording view, with WORDING=all its first-person view too. */
const wordings = (set: FactsDevSet) => (WORDING === "all" ? [set, viewOf(set), firstOf(set)] : WORDING === "both" ? [set, viewOf(set)] : [set]);
/** The sets scored: each development set as written, then in the extractor's wording, then in the first person. */
const scored = [...sets, ...sets.map(viewOf), ...sets.map(firstOf)];
{
  const texts = [...scored, ...extraSets.flatMap((x) => [x, viewOf(x), firstOf(x)])].flatMap((s) => s.people.flatMap((p) => [...p.facts.map((f) => f.text), ...p.questions.map((q) => q.q)]));
  await cache.embedDocuments(texts);
  await cache.save();
}
const vec = async (t: string) => normalise(Float64Array.from(await cache.embedQuery(t)));
const examples = (people: Parameters<typeof examplesOf>[0], s: TrainSettings = settings) => examplesOf(people, vec, s.otherNegatives);

/** FUSIONS='[{}, {"keywordWeight": 1}]': hybridRank options to score each XVAL adapter with (default: the shipped fusion). */
const FUSIONS = JSON.parse(process.env.FUSIONS ?? "[{}]") as HybridRankOptions[];
/** SUPERSEDED=promote,demote,off: the rules for replaced facts to score each XVAL adapter with, each with every fusion (default: the shipped rule). */
const SUPERSEDED = (process.env.SUPERSEDED ?? RANKING.superseded).split(",").map((x) => {
  if (x !== "promote" && x !== "demote" && x !== "off") throw new Error(`SUPERSEDED must list promote, demote or off, got ${x}`);
  return x;
});
/** RETRIEVAL=vector: the stores scored rank by the vector side alone (the default: hybrid). */
const RETRIEVAL = process.env.RETRIEVAL === "vector" ? ("vector" as const) : process.env.RETRIEVAL === undefined || process.env.RETRIEVAL === "hybrid" ? undefined : (() => { throw new Error(`RETRIEVAL must be vector or hybrid, got ${process.env.RETRIEVAL}`); })();
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(" ");
const pct = (x: number) => (100 * x).toFixed(1);
console.log(`query adapter${ADAPTER ? ` (${ADAPTER})` : ""}, ${new Date().toISOString()}, load ${load()}, ${shown(settings)}${setC ? ", with set C" : ""}${setD ? ", with set D" : ""}, wording ${WORDING}`);

/** R@5 / R@10 / MRR / preload R@5 of one part of a set through a real store whose queries go through `adapter`. */
async function storeScore(set: FactsDevSet, part: SetPart, adapter: QueryAdapter | undefined): Promise<FactsMetrics> {
  const store = await FactsStore.open(set, new AdaptedQueryEmbeddings(cache, adapter), { retrieval: RETRIEVAL });
  const m = (await store.score(part)).all;
  await store.close();
  return m;
}
const f = (m: FactsMetrics) => `${pct(m.r5)} | ${pct(m.r10)} | ${m.mrr.toFixed(3)} | ${pct(m.preload5)}`;

if (process.env.XVAL) {
  // Settings chosen without the held-out people and across sets: trained on one set's tune people,
  // scored through the store on the OTHER set's tune people (A-tune → B-tune, B-tune → A-tune).
  // Every env setting may be a comma list; every combination is one row.
  const [a, b] = sets as [FactsDevSet, FactsDevSet];
  const grid: TrainSettings[] = [{ ...settings }];
  for (const [k, e] of Object.entries(ENV)) {
    const values = list(e, DEFAULTS[k as keyof TrainSettings]);
    const next: TrainSettings[] = [];
    for (const g of grid) for (const x of values) next.push({ ...g, [k]: x });
    grid.splice(0, grid.length, ...next);
  }
  const exCache = new Map<string, Promise<Example[]>>();
  const ex = (set: FactsDevSet, s: TrainSettings) => {
    const key = `${set.name}:${s.otherNegatives}`;
    if (!exCache.has(key)) exCache.set(key, examples(peopleOf(set, "tune"), s));
    return exCache.get(key)!;
  };
  const all = async (set: FactsDevSet, s: TrainSettings) => (await Promise.all(wordings(set).map((w) => ex(w, s)))).flat();
  const withC = async (set: FactsDevSet, s: TrainSettings) => [...(await all(set, s)), ...(await Promise.all(extraSets.map((x) => all(x, s)))).flat()];
  // Each direction scored in all three wordings of the other set's tune people (as written, the extractor's, the first person).
  const both = async (set: FactsDevSet, adapter: QueryAdapter | undefined) =>
    [await storeScore(set, "tune", adapter), await storeScore(viewOf(set), "tune", adapter), await storeScore(firstOf(set), "tune", adapter)] as const;
  const mean = (ms: FactsMetrics[], k: "r5" | "r10" | "mrr") => ms.reduce((x, m) => x + m[k], 0) / ms.length;
  const row = (onB: readonly FactsMetrics[], onA: readonly FactsMetrics[]) =>
    `${onB.map(f).join(" | ")} | ${onA.map(f).join(" | ")} | ${pct(mean([...onA, ...onB], "r5"))} | ${pct(mean([...onA, ...onB], "r10"))} | ${mean([...onA, ...onB], "mrr").toFixed(3)} |`;
  const cols = (dir: string) => `| ${dir} R@5 | R@10 | MRR | preload | same, extractor wording R@5 | R@10 | MRR | preload | same, first person R@5 | R@10 | MRR | preload `;
  console.log("\n| settings " + cols("A-tune → B-tune") + cols("B-tune → A-tune") + "| mean R@5 | mean R@10 | mean MRR |\n|---|" + "---|".repeat(27));
  // NONE=0 leaves out the row without an adapter (the same in every run).
  if (process.env.NONE !== "0") console.log(`| none | ${row(await both(b, undefined), await both(a, undefined))}`);
  for (const s of grid) {
    const diff = Object.entries(s).filter(([k, x]) => DEFAULTS[k as keyof TrainSettings] !== x).map(([k, x]) => `${k} ${x}`).join(", ") || "defaults";
    const toB = train(await withC(a, s), s, DIMS);
    const toA = train(await withC(b, s), s, DIMS);
    // Each fusion and replaced-facts variant scored with the same two adapters.
    for (const fusion of FUSIONS) {
      for (const superseded of SUPERSEDED) {
        const [onB, onA] = await withRanking({ fusion, superseded }, async () => [await both(b, toB), await both(a, toA)] as const);
        const label = `${FUSIONS.length > 1 || Object.keys(fusion).length ? `, fusion ${JSON.stringify(fusion)}` : ""}${SUPERSEDED.length > 1 || superseded !== SHIPPED_RANKING.superseded ? `, superseded ${superseded}` : ""}`;
        console.log(`| ${diff}${label} | ${row(onB, onA)}`);
      }
    }
  }
  console.log(`\nload at the end ${load()}`);
  process.exit(0);
}

if (process.env.VAL) {
  // Settings chosen without the held-out people: half of each tune part trains, the other half scores.
  const halves = (set: FactsDevSet) => {
    const tune = peopleOf(set, "tune");
    return [tune.filter((_, i) => i % 2 === 0), tune.filter((_, i) => i % 2 === 1)] as const;
  };
  const [a, b] = sets as [FactsDevSet, FactsDevSet];
  const [aFit, aVal] = halves(a).map((h) => examples(h));
  const [bFit, bVal] = halves(b).map((h) => examples(h));
  const fitA = await aFit!, valA = await aVal!, fitB = await bFit!, valB = await bVal!;
  const t = performance.now();
  const adapter = train([...fitA, ...fitB], settings, DIMS);
  const ms = performance.now() - t;
  const adA = train(fitA, settings, DIMS);
  const adB = train(fitB, settings, DIMS);
  console.log(
    `VAL cosine R@5 (half of tune):  base A ${pct(cosineR5(valA))} B ${pct(cosineR5(valB))} | A+B-trained A ${pct(cosineR5(valA, adapter))} B ${pct(cosineR5(valB, adapter))}` +
      ` | A-trained B ${pct(cosineR5(valB, adA))} | B-trained A ${pct(cosineR5(valA, adB))} | fit A ${pct(cosineR5(fitA, adapter))} | train ${ms.toFixed(0)} ms`,
  );
  process.exit(0);
}

const [setA, setB] = sets as [FactsDevSet, FactsDevSet];
const tuneExamples = async (set: FactsDevSet) => (await Promise.all(wordings(set).map((w) => examples(peopleOf(w, "tune"))))).flat();
const exA = await tuneExamples(setA);
const exB = await tuneExamples(setB);
const exC = (await Promise.all(extraSets.map(tuneExamples))).flat();
/** TRAIN_EP=1: the conversational sets' tune conversations (dev1 c0–c3, dev2 d0–d3) join the training. */
const exE = process.env.TRAIN_EP
  ? await episodeExamples((await Promise.all((process.env.TRAIN_EP === "1" ? ["dev1", "dev2"] as const : [process.env.TRAIN_EP as "dev1" | "dev2"]).map((set) => loadConversationSet(set, "tune")))).flat(), vec)
  : [];
if (process.env.WRITE) {
  await writeFile(WEIGHTS_FILE, weightsModule(train([...exA, ...exB, ...exC, ...exE], settings, DIMS), settings));
  console.log(`wrote ${WEIGHTS_FILE.pathname} (trained on the tune people of both sets${setC ? " and set C" : ""}${setD ? " and set D" : ""}${WORDING === "both" ? ", each in both wordings" : WORDING === "all" ? ", each in all three wordings" : ""})`);
  process.exit(0);
}
const extras = `${setC ? " + C" : ""}${setD ? " + D" : ""}`;
const trained: Record<string, QueryAdapter | undefined> = {
  none: undefined,
  [`A-tune${extras}`]: train([...exA, ...exC], settings, DIMS),
  [`B-tune${extras}`]: train([...exB, ...exC], settings, DIMS),
  [`A+B tune${extras}`]: train([...exA, ...exB, ...exC, ...exE], settings, DIMS),
};
console.log("\n| trained on | set | part | R@5 | R@10 | MRR | preload R@5 |\n|---|---|---|---|---|---|---|");
for (const [name, adapter] of Object.entries(trained)) {
  for (const set of scored) {
    const store = await FactsStore.open(set, new AdaptedQueryEmbeddings(cache, adapter));
    for (const part of ["tune", "heldout"] as SetPart[]) console.log(`| ${name} | ${set.name} | ${part} | ${f((await store.score(part)).all)} |`);
    await store.close();
  }
}
console.log(`\nload at the end ${load()}`);

/** One shipped adapter's weights as a TypeScript module (compiled with the package; no data file to copy). */
function weightsModule(adapter: QueryAdapter, s: TrainSettings): string {
  const b64 = (x: ArrayLike<number>) => Buffer.from(Float32Array.from(x).buffer).toString("base64");
  return [
    `// Generated by bench/train-query-adapter.ts (ADAPTER=${ADAPTER} WRITE=1): do not edit. The query-side`,
    `// adapter for USE-lite's ${ADAPTER} searches, trained on the tune people of bench/data/facts-dev-a.json and`,
    `// facts-dev-b.json${setC ? " and every person of facts-dev-c.json" : ""}${setD ? `${setC ? "," : " and"} every person of facts-dev-d.json` : ""}${WORDING === "both" ? ", each as written and in the extractor's wording" : WORDING === "all" ? ", each as written, in the extractor's wording and in the first person" : ""}${exE.length ? `, and the tune conversations of the conversational sets (TRAIN_EP=${process.env.TRAIN_EP})` : ""}, with ${shown(s)}.`,
    `// U and V: dims × rank float32, row-major, little-endian, base64${adapter.b ? "; b: dims float32, the bias" : ""}.`,
    `export const ${WEIGHTS_EXPORT} = {`,
    `  model: ${JSON.stringify(USE_LITE_MODEL)},`,
    `  dims: ${adapter.dims},`,
    `  rank: ${adapter.rank},`,
    `  u: "${b64(adapter.u)}",`,
    `  v: "${b64(adapter.v)}",`,
    ...(adapter.b ? [`  b: "${b64(adapter.b)}",`] : []),
    "};",
    "",
  ].join("\n");
}
