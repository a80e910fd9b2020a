/**
 * Training of the low-rank query adapter (src/embeddings/query-adapter.ts)
 * for bench/train-query-adapter.ts: q' = normalise(q + U·(Vᵀq)), and with
 * `bias` q' = normalise(q + U·(Vᵀq) + b) (b at zero to start, the same decay).
 *
 * Loss per example (a question, its person's facts, the answer facts among
 * them): a softmax over the person's facts at temperature `tau`, the answers
 * sharing the target; optionally
 *   - `otherNegatives`: the k facts of OTHER training people on the answer's
 *     topic (the fact's `category`) nearest to the question, added to the
 *     softmax as wrong rows (hard negatives from outside the person);
 *   - `nearMargin`: a hinge on the `nearK` highest-scoring wrong facts of the
 *     same person: each answer must beat each of them by `nearMargin` in
 *     cosine, weighted by `nearWeight`.
 * Plus L2 weight decay lambda/2·(|U|²+|V|²); full-batch Adam, V from a seeded
 * generator and U at zero (training starts from the unchanged embedder).
 * Deterministic: the same vectors and settings give the same weights.
 */
import { baselineText, type LargeConversation } from "./conversations-large.js";
import { QueryAdapter } from "../../src/embeddings/query-adapter.js";
import type { DevPerson } from "./facts-sets.js";
import { rng } from "./vectors.js";

export interface TrainSettings {
  rank: number;
  tau: number;
  lambda: number;
  epochs: number;
  lr: number;
  seed: number;
  /** Facts of other people on the answer's topic added as negatives (0: none). */
  otherNegatives: number;
  /** Cosine margin each answer must keep over the nearest wrong facts of the person (0: off). */
  nearMargin: number;
  nearK: number;
  nearWeight: number;
  /** 1: learn the affine bias b too (0 or unset: none, the map as before). */
  bias?: number;
}

/** One training example: a question, its person's facts (rows), which of them answer it, extra wrong rows. */
export interface Example {
  q: Float64Array;
  facts: Float64Array[];
  positives: number[];
  /** Wrong facts from other people (softmax rows only; never ranked against at search time). */
  others: Float64Array[];
}

export type Vectorise = (text: string) => Promise<Float64Array>;

export function normalise(x: Float64Array): Float64Array {
  let n = 0;
  for (const v of x) n += v * v;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < x.length; i++) x[i]! *= s;
  return x;
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** The answerable questions of `people` as examples; `otherNegatives` nearest same-topic facts of the other people in `people`. */
export async function examples(people: DevPerson[], vec: Vectorise, otherNegatives = 0): Promise<Example[]> {
  const byPerson = await Promise.all(
    people.map(async (p) => ({ p, facts: await Promise.all(p.facts.map((f) => vec(f.text))) })),
  );
  const out: Example[] = [];
  for (const { p, facts } of byPerson) {
    for (const q of p.questions) {
      if (q.answers.length === 0) continue;
      const positives = q.answers.map((a) => p.facts.findIndex((f) => f.id === a));
      const qv = await vec(q.q);
      let others: Float64Array[] = [];
      if (otherNegatives > 0) {
        const topics = new Set(positives.map((i) => p.facts[i]!.category));
        const pool = byPerson
          .filter((x) => x.p !== p)
          .flatMap((x) => x.facts.filter((_, i) => topics.has(x.p.facts[i]!.category)));
        others = pool
          .map((f) => ({ f, s: dot(f, qv) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, otherNegatives)
          .map((x) => x.f);
      }
      out.push({ q: qv, facts, positives, others });
    }
  }
  return out;
}

/**
 * The questions of the conversational development sets' TUNE conversations as
 * examples: the rows are every turn of the conversation (`"<speaker>: <text>"`,
 * what `recordEpisodes` indexes), the positives its evidence turns.
 */
export async function episodeExamples(conversations: LargeConversation[], vec: Vectorise): Promise<Example[]> {
  const out: Example[] = [];
  for (const c of conversations) {
    const index = new Map<string, number>();
    const rows: Float64Array[] = [];
    for (const [si, s] of c.sessions.entries()) {
      for (const [ti, [speaker, text]] of s.turns.entries()) {
        index.set(`${si}:${ti}`, rows.length);
        rows.push(await vec(baselineText(speaker, text)));
      }
    }
    for (const q of c.questions) {
      const positives = q.evidence.map(([si, ti]) => index.get(`${si}:${ti}`)).filter((i): i is number => i !== undefined);
      if (positives.length > 0) out.push({ q: await vec(q.q), facts: rows, positives, others: [] });
    }
  }
  return out;
}

/** Full-batch Adam on the loss above. */
export function train(data: Example[], s: TrainSettings, d = 512): QueryAdapter {
  const r = s.rank;
  const rand = rng(s.seed);
  const u = new Float64Array(d * r);
  const v = new Float64Array(d * r);
  for (let i = 0; i < v.length; i++) v[i] = (rand() * 2 - 1) * Math.sqrt(3 / d);
  const b = s.bias ? new Float64Array(d) : undefined;
  const gb = new Float64Array(d);
  const params = b ? [u, v, b] : [u, v];
  const m = params.map((p) => new Float64Array(p.length));
  const m2 = params.map((p) => new Float64Array(p.length));
  const gu = new Float64Array(d * r);
  const gv = new Float64Array(d * r);
  const z = new Float64Array(r);
  const a = new Float64Array(d);
  const ga = new Float64Array(d);
  const gz = new Float64Array(r);
  const n = data.length;
  for (let epoch = 1; epoch <= s.epochs; epoch++) {
    gu.fill(0);
    gv.fill(0);
    gb.fill(0);
    for (const ex of data) {
      const q = ex.q;
      z.fill(0);
      for (let i = 0; i < d; i++) for (let k = 0; k < r; k++) z[k]! += v[i * r + k]! * q[i]!;
      let norm = 0;
      for (let i = 0; i < d; i++) {
        let x = q[i]!;
        for (let k = 0; k < r; k++) x += u[i * r + k]! * z[k]!;
        if (b) x += b[i]!;
        a[i] = x;
        norm += x * x;
      }
      norm = Math.sqrt(norm);
      // cosines of q' = a/|a| with every row (own facts, then other people's), softmax at temperature tau
      const rows = ex.others.length ? [...ex.facts, ...ex.others] : ex.facts;
      const cos = rows.map((f) => dot(f, a) / norm);
      const scores = cos.map((c) => c / s.tau);
      const max = Math.max(...scores);
      const e = scores.map((x) => Math.exp(x - max));
      const sum = e.reduce((x, y) => x + y, 0);
      const target = new Float64Array(rows.length);
      for (const p of ex.positives) target[p]! += 1 / ex.positives.length;
      // gradient with respect to q' (ga), then a: (gq − q'(q'·gq)) / |a|
      ga.fill(0);
      rows.forEach((f, j) => {
        const g = (e[j]! / sum - target[j]!) / s.tau / n;
        if (g !== 0) for (let i = 0; i < d; i++) ga[i]! += g * f[i]!;
      });
      if (s.nearMargin > 0) {
        const pos = new Set(ex.positives);
        const near = ex.facts
          .map((_, j) => j)
          .filter((j) => !pos.has(j))
          .sort((x, y) => cos[y]! - cos[x]!)
          .slice(0, s.nearK);
        const w = s.nearWeight / n / ex.positives.length;
        for (const p of ex.positives)
          for (const j of near) {
            if (cos[j]! + s.nearMargin <= cos[p]!) continue;
            const fp = ex.facts[p]!;
            const fj = ex.facts[j]!;
            for (let i = 0; i < d; i++) ga[i]! += w * (fj[i]! - fp[i]!);
          }
      }
      const proj = dot(ga, a) / norm;
      for (let i = 0; i < d; i++) ga[i] = (ga[i]! - (a[i]! / norm) * proj) / norm;
      if (b) for (let i = 0; i < d; i++) gb[i]! += ga[i]!;
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
    (b ? [gu, gv, gb] : [gu, gv]).forEach((g, pi) => {
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
  return new QueryAdapter(d, r, u, v, b);
}

/** Plain cosine recall@5 of the answers among each person's facts (no store): a quick score for choosing settings. */
export function cosineR5(data: Example[], adapter?: QueryAdapter): number {
  let total = 0;
  for (const ex of data) {
    const q = adapter ? adapter.apply(ex.q) : Array.from(ex.q);
    const scores = ex.facts.map((f, j) => ({ j, s: dot(f, q) }));
    scores.sort((x, y) => y.s - x.s);
    const top = new Set(scores.slice(0, 5).map((x) => x.j));
    total += ex.positives.filter((p) => top.has(p)).length / ex.positives.length;
  }
  return total / data.length;
}
