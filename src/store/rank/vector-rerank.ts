/**
 * Post-retrieval vector re-scoring of a candidate pool (experimental levers,
 * measured by bench/tune-facts.ts): centring, all-but-the-top, Rocchio
 * feedback, MMR, and pool-relative scores.
 */
export type Vec = ArrayLike<number>;

export interface RerankSettings {
  /** Mean subtracted before cosine: none, the pool's own mean, or a given (store-wide) one. */
  centre: "off" | "pool" | "store" | "shrunk";
  /** Pool size at which a shrunk mean is half pool, half store. */
  shrink: number;
  /** Principal directions of the store's centred vectors removed. */
  dropTop: number;
  /** Rocchio: q' = q + beta * mean(top m). */
  prfBeta: number;
  prfTop: number;
  /** Feedback from the vector ranking's top, or the fused ranking's top (a second pass). */
  prfSource: "vector" | "fused";
  /** MMR lambda (1 = off). */
  mmr: number;
  /** Reported score. */
  score: "cosine" | "centred" | "z";
}

export const RERANK_OFF: RerankSettings = { centre: "off", shrink: 20, dropTop: 0, prfBeta: 0, prfTop: 3, prfSource: "vector", mmr: 1, score: "cosine" };

export function isOff(s: RerankSettings): boolean {
  return s.centre === "off" && s.dropTop === 0 && (s.prfBeta === 0 || s.prfSource === "fused") && s.mmr >= 1 && s.score === "cosine";
}

export function meanOf(vs: readonly Vec[], dims: number): Float64Array {
  const m = new Float64Array(dims);
  for (const v of vs) for (let i = 0; i < dims; i++) m[i]! += v[i]!;
  if (vs.length) for (let i = 0; i < dims; i++) m[i]! /= vs.length;
  return m;
}

function sub(v: Vec, m: Float64Array | undefined, dirs: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! - (m ? m[i]! : 0);
  for (const d of dirs) {
    let p = 0;
    for (let i = 0; i < out.length; i++) p += out[i]! * d[i]!;
    for (let i = 0; i < out.length; i++) out[i]! -= p * d[i]!;
  }
  return out;
}

function unit(v: Float64Array): Float64Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

function dot(a: Vec, b: Vec): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Top principal directions of vectors centred on `mean` (power iteration with deflation). */
export function principalDirections(vs: readonly Vec[], mean: Float64Array, count: number): Float64Array[] {
  const dims = mean.length;
  const centred = vs.map((v) => sub(v, mean, []));
  const dirs: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    let d: Float64Array = new Float64Array(dims);
    for (let i = 0; i < dims; i++) d[i] = Math.sin(i * 12.9898 + c * 78.233);
    unit(d);
    for (let it = 0; it < 50; it++) {
      const next = new Float64Array(dims);
      for (const x of centred) {
        const p = dot(x, d);
        for (let i = 0; i < dims; i++) next[i]! += p * x[i]!;
      }
      for (const prev of dirs) {
        const p = dot(next, prev);
        for (let i = 0; i < dims; i++) next[i]! -= p * prev[i]!;
      }
      d = unit(next);
    }
    dirs.push(d);
  }
  return dirs;
}

export interface PoolEntry {
  /** The entry's vectors (an entry is scored by its best). */
  vectors: readonly Vec[];
}

/**
 * Scores every pool entry against the query with the settings' geometry.
 * Returns, per entry, the re-scored similarity, plus an order (best first)
 * after feedback and MMR, and the reported score per entry.
 */
export function rerankPool(
  query: Vec,
  pool: readonly PoolEntry[],
  s: RerankSettings,
  store?: { mean: Float64Array; dirs: Float64Array[] },
): { order: number[]; scores: number[] } {
  const dims = query.length;
  let mean: Float64Array | undefined;
  if (s.centre === "pool") mean = meanOf(pool.flatMap((p) => p.vectors), dims);
  else if (s.centre === "store") mean = store?.mean;
  else if (s.centre === "shrunk" && store) {
    const pm = meanOf(pool.flatMap((p) => p.vectors), dims);
    const n = pool.length;
    const w = n / (n + s.shrink);
    mean = new Float64Array(dims);
    for (let i = 0; i < dims; i++) mean[i] = w * pm[i]! + (1 - w) * store.mean[i]!;
  }
  const dirs = s.dropTop > 0 && store ? store.dirs.slice(0, s.dropTop) : [];
  const tr = (v: Vec) => unit(sub(v, mean, dirs));
  const docs = pool.map((p) => p.vectors.map(tr));
  let q = tr(query);
  const sim = (qq: Vec) => docs.map((ds) => Math.max(...ds.map((d) => dot(qq, d))));
  let scores = sim(q);
  if (s.prfBeta > 0 && s.prfSource === "vector" && pool.length > 0) {
    const top = scores.map((x, i) => [x, i] as const).sort((a, b) => b[0] - a[0]).slice(0, s.prfTop);
    const q2 = new Float64Array(q);
    for (const [, i] of top) {
      const d = docs[i]![0]!;
      for (let k = 0; k < dims; k++) q2[k]! += (s.prfBeta / top.length) * d[k]!;
    }
    q = unit(q2);
    scores = sim(q);
  }
  let order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  if (s.mmr < 1) {
    const chosen: number[] = [];
    const left = new Set(order);
    const maxSim = new Array<number>(pool.length).fill(-Infinity);
    while (left.size) {
      let best = -1;
      let bestVal = -Infinity;
      for (const i of left) {
        const red = chosen.length ? maxSim[i]! : 0;
        const v = s.mmr * scores[i]! - (1 - s.mmr) * red;
        if (v > bestVal) {
          bestVal = v;
          best = i;
        }
      }
      chosen.push(best);
      left.delete(best);
      const b = docs[best]![0]!;
      for (const i of left) maxSim[i] = Math.max(maxSim[i]!, dot(docs[i]![0]!, b));
    }
    order = chosen;
  }
  let reported = scores;
  if (s.score === "z") {
    const mu = scores.reduce((a, b) => a + b, 0) / (scores.length || 1);
    const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mu) ** 2, 0) / (scores.length || 1)) || 1;
    reported = scores.map((x) => (x - mu) / sd / 10);
  }
  return { order, scores: reported };
}
