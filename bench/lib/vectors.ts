import { readFile, writeFile } from "node:fs/promises";
import { Embeddings } from "@langchain/core/embeddings";

/** Seeded PRNG (mulberry32): the same seed gives the same vectors on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` random unit vectors of `dims` (Gaussian directions), row-major in one array. */
export function randomUnitVectors(count: number, dims: number, seed: number): Float32Array {
  const next = rng(seed);
  const out = new Float32Array(count * dims);
  for (let r = 0; r < count; r++) {
    const o = r * dims;
    let s = 0;
    for (let i = 0; i < dims; i += 2) {
      const m = Math.sqrt(-2 * Math.log(next() || 1e-12));
      const a = 2 * Math.PI * next();
      out[o + i] = m * Math.cos(a);
      if (i + 1 < dims) out[o + i + 1] = m * Math.sin(a);
    }
    for (let i = 0; i < dims; i++) s += out[o + i] * out[o + i];
    const n = Math.sqrt(s);
    for (let i = 0; i < dims; i++) out[o + i] /= n;
  }
  return out;
}

/**
 * `count` unit vectors of `dims` that lie near a random `rank`-dimensional
 * subspace (plus a little isotropic noise): the low intrinsic dimension of
 * real text embeddings, which uniform random vectors lack entirely. The
 * subspace comes from `basisSeed`, so data and queries share it.
 */
export function lowRankUnitVectors(count: number, dims: number, seed: number, options: { rank?: number; noise?: number; basisSeed?: number } = {}): Float32Array {
  const rank = options.rank ?? 32;
  const noise = options.noise ?? 0.05;
  const gauss = (next: () => number) => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  const nb = rng(options.basisSeed ?? 99);
  const basis = new Float32Array(dims * rank);
  for (let i = 0; i < basis.length; i++) basis[i] = gauss(nb) / Math.sqrt(rank);
  const next = rng(seed);
  const out = new Float32Array(count * dims);
  const z = new Float32Array(rank);
  for (let r = 0; r < count; r++) {
    for (let j = 0; j < rank; j++) z[j] = gauss(next);
    const o = r * dims;
    let s = 0;
    for (let i = 0; i < dims; i++) {
      let v = noise * gauss(next);
      for (let j = 0; j < rank; j++) v += basis[i * rank + j] * z[j];
      out[o + i] = v;
      s += v * v;
    }
    const n = Math.sqrt(s);
    for (let i = 0; i < dims; i++) out[o + i] /= n;
  }
  return out;
}

/** Row `i` of a row-major matrix as a plain array (what embedders return). */
export const row = (m: Float32Array, dims: number, i: number): number[] => {
  // A plain loop: Array.from goes through the iterator protocol, ~10× slower.
  const out = new Array<number>(dims);
  for (let j = 0, at = i * dims; j < dims; j++) out[j] = m[at + j]!;
  return out;
};

/**
 * Exact top-k by dot product (= cosine for unit vectors) of each query over
 * rows `[from, to)` of `data`. Returns row indices, best first.
 */
export function exactTopK(data: Float32Array, queries: Float32Array, dims: number, k: number, from: number, to: number): Int32Array[] {
  const nq = queries.length / dims;
  const out: Int32Array[] = [];
  for (let q = 0; q < nq; q++) {
    const qo = q * dims;
    const bestIdx = new Int32Array(k).fill(-1);
    const bestScore = new Float64Array(k).fill(-Infinity);
    for (let r = from; r < to; r++) {
      const o = r * dims;
      let s = 0;
      for (let j = 0; j < dims; j++) s += queries[qo + j] * data[o + j];
      if (s <= bestScore[k - 1]) continue;
      let p = k - 1;
      while (p > 0 && bestScore[p - 1] < s) {
        bestScore[p] = bestScore[p - 1];
        bestIdx[p] = bestIdx[p - 1];
        p--;
      }
      bestScore[p] = s;
      bestIdx[p] = r;
    }
    out.push(bestIdx);
  }
  return out;
}

/** Mean fraction of the exact top-k found in each returned list. */
export function recallAtK(returned: number[][], exact: Int32Array[]): number {
  let hit = 0;
  let total = 0;
  returned.forEach((ids, q) => {
    const truth = new Set(exact[q]);
    for (const id of ids) if (truth.has(id)) hit++;
    total += exact[q].length;
  });
  return total ? hit / total : 0;
}

const DOC_LETTERS = "abcdefghijklm";
const QUERY_LETTERS = "nopqrstuvwxyz";

/**
 * `i` spelled in base 13 with letters: a–m for documents, n–z for queries,
 * so that no query shares a word with any document (BM25 finds nothing,
 * as for a query with no keyword hit). {@link PrecomputedEmbeddings} reads
 * both spellings.
 */
export function idText(kind: "v" | "q", i: number): string {
  const letters = kind === "v" ? DOC_LETTERS : QUERY_LETTERS;
  let out = "";
  do {
    out = letters[i % 13] + out;
    i = Math.floor(i / 13);
  } while (i > 0);
  return `${kind}:${out}`;
}

function fromLetters(word: string): number {
  let i = 0;
  for (const c of word) i = i * 13 + ((c.charCodeAt(0) - 97) % 13);
  return i;
}

/**
 * Maps text ids to precomputed vectors: `"v:123"` → row 123 of the data,
 * `"q:5"` → query 5. Lets the stores be fed the exact same vectors as raw
 * hnswlib, with no embedding cost in the figures.
 */
export class PrecomputedEmbeddings extends Embeddings {
  /** Read by the store's embedder identity. */
  readonly model = "bench-precomputed";

  constructor(
    private readonly data: Float32Array,
    private readonly queries: Float32Array,
    private readonly dims: number,
  ) {
    super({});
  }

  private lookup(text: string): number[] {
    const [kind, n] = text.split(":");
    const i = /^[a-z]+$/.test(n ?? "") ? fromLetters(n!) : Number(n);
    if (kind === "v") return row(this.data, this.dims, i);
    if (kind === "q") return row(this.queries, this.dims, i);
    throw new Error(`PrecomputedEmbeddings: unknown text ${JSON.stringify(text)}`);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.lookup(t));
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.lookup(text);
  }
}

/** Writes a Float32Array to a file (for handing the data set to worker processes). */
export async function saveMatrix(file: string, m: Float32Array): Promise<void> {
  await writeFile(file, new Uint8Array(m.buffer, m.byteOffset, m.byteLength));
}

export async function loadMatrix(file: string): Promise<Float32Array> {
  const buf = await readFile(file);
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

/** p50/p95/p99/max/mean of latency samples in ms. */
export function latency(samples: number[]): { p50: number; p95: number; p99: number; max: number; mean: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: r(at(50)), p95: r(at(95)), p99: r(at(99)), max: r(s[s.length - 1] ?? 0), mean: r(s.reduce((a, b) => a + b, 0) / (s.length || 1)), n: s.length };
}
