/**
 * Trains a low-rank query-side adapter for USE-lite on the facts development
 * sets and scores it through the real store: `npx tsx bench/train-query-adapter.ts`.
 *
 * q' = normalise(q + U·(Vᵀq)) (bench/lib/query-adapter.ts). Training pairs are
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
 * VAL=1 instead chooses settings without the held-out people: it trains on
 * half of each set's tune people and scores plain cosine R@5 on the other half.
 * Settings: RANK (32), TAU (0.05), LAMBDA (0.1), EPOCHS (100), LR (0.01), SEED (7).
 * Vectors come from the bench cache (bench/results/use-lite-vectors.json).
 * WRITE=1 writes the adapter trained on both tune parts to
 * src/embeddings/use-lite-query-adapter.weights.ts (the shipped weights).
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { FactsStore, type FactsMetrics } from "./lib/facts-eval.js";
import { DEV_SETS } from "./lib/facts-bench.js";
import { loadFactsDevSet, peopleOf, type DevPerson, type FactsDevSet, type SetPart } from "./lib/facts-sets.js";
import { QueryAdapter } from "../src/embeddings/query-adapter.js";
import { AdaptedQueryEmbeddings } from "./lib/query-adapter.js";
import { rng } from "./lib/vectors.js";

const num = (name: string, d: number) => (process.env[name] === undefined ? d : Number(process.env[name]));
export interface TrainSettings {
  rank: number;
  tau: number;
  lambda: number;
  epochs: number;
  lr: number;
  seed: number;
}
const settings: TrainSettings = {
  rank: num("RANK", 32),
  tau: num("TAU", 0.05),
  lambda: num("LAMBDA", 0.1),
  epochs: num("EPOCHS", 100),
  lr: num("LR", 0.01),
  seed: num("SEED", 7),
};
const DIMS = 512;
const USE_LITE_MODEL = new UniversalSentenceEncoderEmbeddings().model;
const WEIGHTS_FILE = new URL("../src/embeddings/use-lite-query-adapter.weights.ts", import.meta.url);

const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();
const sets = await Promise.all(DEV_SETS.map((f) => loadFactsDevSet(f)));
{
  const texts = sets.flatMap((s) => s.people.flatMap((p) => [...p.facts.map((f) => f.text), ...p.questions.map((q) => q.q)]));
  await cache.embedDocuments(texts);
  await cache.save();
}
const vec = async (t: string) => normalise(Float64Array.from(await cache.embedQuery(t)));

/** One training example: a question, its person's facts (rows), which of them answer it. */
interface Example {
  q: Float64Array;
  facts: Float64Array[];
  positives: number[];
}

async function examples(people: DevPerson[]): Promise<Example[]> {
  const out: Example[] = [];
  for (const p of people) {
    const facts = await Promise.all(p.facts.map((f) => vec(f.text)));
    for (const q of p.questions) {
      if (q.answers.length === 0) continue;
      const positives = q.answers.map((a) => p.facts.findIndex((f) => f.id === a));
      out.push({ q: await vec(q.q), facts, positives });
    }
  }
  return out;
}

function normalise(x: Float64Array): Float64Array {
  let n = 0;
  for (const v of x) n += v * v;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < x.length; i++) x[i]! *= s;
  return x;
}


/** Full-batch Adam on the mean softmax loss over each example's facts, plus lambda/2·(|U|²+|V|²). */
export function train(data: Example[], s: TrainSettings): QueryAdapter {
  const d = DIMS;
  const r = s.rank;
  const rand = rng(s.seed);
  const u = new Float64Array(d * r);
  const v = new Float64Array(d * r);
  for (let i = 0; i < v.length; i++) v[i] = (rand() * 2 - 1) * Math.sqrt(3 / d);
  const params = [u, v];
  const m = params.map((p) => new Float64Array(p.length));
  const m2 = params.map((p) => new Float64Array(p.length));
  const gu = new Float64Array(d * r);
  const gv = new Float64Array(d * r);
  const z = new Float64Array(r);
  const a = new Float64Array(d);
  const ga = new Float64Array(d);
  const gz = new Float64Array(r);
  for (let epoch = 1; epoch <= s.epochs; epoch++) {
    gu.fill(0);
    gv.fill(0);
    for (const ex of data) {
      const q = ex.q;
      z.fill(0);
      for (let i = 0; i < d; i++) for (let k = 0; k < r; k++) z[k]! += v[i * r + k]! * q[i]!;
      let norm = 0;
      for (let i = 0; i < d; i++) {
        let x = q[i]!;
        for (let k = 0; k < r; k++) x += u[i * r + k]! * z[k]!;
        a[i] = x;
        norm += x * x;
      }
      norm = Math.sqrt(norm);
      // scores of q' = a/|a| against every fact, softmax at temperature tau
      const scores = ex.facts.map((f) => {
        let dot = 0;
        for (let i = 0; i < d; i++) dot += f[i]! * a[i]!;
        return dot / norm / s.tau;
      });
      const max = Math.max(...scores);
      const e = scores.map((x) => Math.exp(x - max));
      const sum = e.reduce((x, y) => x + y, 0);
      const target = new Float64Array(scores.length);
      for (const p of ex.positives) target[p]! += 1 / ex.positives.length;
      // gradient with respect to q' (gq), then a: (gq − q'(q'·gq)) / |a|
      ga.fill(0);
      ex.facts.forEach((f, j) => {
        const g = (e[j]! / sum - target[j]!) / s.tau / data.length;
        if (g !== 0) for (let i = 0; i < d; i++) ga[i]! += g * f[i]!;
      });
      let dot = 0;
      for (let i = 0; i < d; i++) dot += ga[i]! * a[i]!;
      dot /= norm;
      for (let i = 0; i < d; i++) ga[i] = (ga[i]! - (a[i]! / norm) * dot) / norm;
      gz.fill(0);
      for (let i = 0; i < d; i++) {
        const g = ga[i]!;
        for (let k = 0; k < r; k++) {
          gu[i * r + k]! += g * z[k]!;
          gz[k]! += u[i * r + k]! * g;
        }
      }
      for (let i = 0; i < d; i++) for (let k = 0; k < r; k++) gv[i * r + k]! += q[i]! * gz[k]!;
    }
    [gu, gv].forEach((g, pi) => {
      const p = params[pi]!;
      const mm = m[pi]!;
      const vv = m2[pi]!;
      const b1 = 0.9;
      const b2 = 0.999;
      for (let i = 0; i < p.length; i++) {
        const gi = g[i]! + s.lambda * p[i]!;
        mm[i] = b1 * mm[i]! + (1 - b1) * gi;
        vv[i] = b2 * vv[i]! + (1 - b2) * gi * gi;
        const mh = mm[i]! / (1 - b1 ** epoch);
        const vh = vv[i]! / (1 - b2 ** epoch);
        p[i]! -= (s.lr * mh) / (Math.sqrt(vh) + 1e-8);
      }
    });
  }
  return new QueryAdapter(d, r, u, v);
}

/** Plain cosine recall@5 of the answers among each person's facts (no store): for choosing settings on tune people. */
function cosineR5(data: Example[], adapter?: QueryAdapter): number {
  let total = 0;
  for (const ex of data) {
    const q = adapter ? adapter.apply(ex.q) : Array.from(ex.q);
    const scores = ex.facts.map((f, j) => ({ j, s: f.reduce((acc, x, i) => acc + x * q[i]!, 0) }));
    scores.sort((x, y) => y.s - x.s);
    const top = new Set(scores.slice(0, 5).map((x) => x.j));
    total += ex.positives.filter((p) => top.has(p)).length / ex.positives.length;
  }
  return total / data.length;
}

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(" ");
const pct = (x: number) => (100 * x).toFixed(1);
console.log(`query adapter, ${new Date().toISOString()}, load ${load()}, ${JSON.stringify(settings)}`);

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
  const adapter = train([...fitA, ...fitB], settings);
  const ms = performance.now() - t;
  const adA = train(fitA, settings);
  const adB = train(fitB, settings);
  console.log(
    `VAL cosine R@5 (half of tune):  base A ${pct(cosineR5(valA))} B ${pct(cosineR5(valB))} | A+B-trained A ${pct(cosineR5(valA, adapter))} B ${pct(cosineR5(valB, adapter))}` +
      ` | A-trained B ${pct(cosineR5(valB, adA))} | B-trained A ${pct(cosineR5(valA, adB))} | fit A ${pct(cosineR5(fitA, adapter))} | train ${ms.toFixed(0)} ms`,
  );
  process.exit(0);
}

const [setA, setB] = sets as [FactsDevSet, FactsDevSet];
const exA = await examples(peopleOf(setA, "tune"));
const exB = await examples(peopleOf(setB, "tune"));
if (process.env.WRITE) {
  await writeFile(WEIGHTS_FILE, weightsModule(train([...exA, ...exB], settings), settings));
  console.log(`wrote ${WEIGHTS_FILE.pathname} (trained on the tune people of both sets)`);
  process.exit(0);
}
const trained: Record<string, QueryAdapter | undefined> = {
  none: undefined,
  "A-tune": train(exA, settings),
  "B-tune": train(exB, settings),
  "A+B tune": train([...exA, ...exB], settings),
};
const f = (m: FactsMetrics) => `${pct(m.r5)} | ${pct(m.r10)} | ${m.mrr.toFixed(3)} | ${pct(m.preload5)}`;
console.log("\n| trained on | set | part | R@5 | R@10 | MRR | preload R@5 |\n|---|---|---|---|---|---|---|");
for (const [name, adapter] of Object.entries(trained)) {
  for (const set of sets) {
    const store = await FactsStore.open(set, new AdaptedQueryEmbeddings(cache, adapter));
    for (const part of ["tune", "heldout"] as SetPart[]) console.log(`| ${name} | ${set.name} | ${part} | ${f((await store.score(part)).all)} |`);
    await store.close();
  }
}
console.log(`\nload at the end ${load()}`);

/** The shipped weights as a TypeScript module (compiled with the package; no data file to copy). */
function weightsModule(adapter: QueryAdapter, s: TrainSettings): string {
  const b64 = (x: ArrayLike<number>) => Buffer.from(Float32Array.from(x).buffer).toString("base64");
  return [
    "// Generated by bench/train-query-adapter.ts (WRITE=1): do not edit. The query-side",
    "// adapter for USE-lite, trained on the tune people of bench/data/facts-dev-a.json and",
    `// facts-dev-b.json with ${JSON.stringify(s)}.`,
    "// U and V: dims × rank float32, row-major, little-endian, base64.",
    "export const USE_LITE_QUERY_ADAPTER = {",
    `  model: ${JSON.stringify(USE_LITE_MODEL)},`,
    `  dims: ${adapter.dims},`,
    `  rank: ${adapter.rank},`,
    `  u: "${b64(adapter.u)}",`,
    `  v: "${b64(adapter.v)}",`,
    "};",
    "",
  ].join("\n");
}
