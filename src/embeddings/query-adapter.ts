import { embedderIdentity } from "./identity.js";
import { USE_LITE_QUERY_ADAPTER } from "./use-lite-query-adapter.weights.js";

/**
 * A low-rank linear map applied to query vectors only:
 * q' = normalise(q + U·(Vᵀq)), U and V of shape dims × rank. Stored vectors
 * and indexes stay as the embedder made them, so turning it on or off needs
 * no reindex. The package ships one, trained for the bundled USE-lite on
 * questions and the facts that answer them (bench/train-query-adapter.ts);
 * stores apply it to their search queries when their embedder is USE-lite
 * (see `index.queryAdapter`).
 */
export class QueryAdapter {
  constructor(
    readonly dims: number,
    readonly rank: number,
    /** dims × rank, row-major. */
    readonly u: ArrayLike<number>,
    /** dims × rank, row-major. */
    readonly v: ArrayLike<number>,
  ) {}

  /** The adapted, L2-normalised query vector (a new array; `q` is not changed). */
  apply(q: ArrayLike<number>): number[] {
    const { dims, rank, u, v } = this;
    const z = new Float64Array(rank);
    for (let i = 0; i < dims; i++) {
      const qi = q[i]!;
      if (qi === 0) continue;
      const row = i * rank;
      for (let k = 0; k < rank; k++) z[k]! += v[row + k]! * qi;
    }
    const out = new Array<number>(dims);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      let a = q[i]!;
      const row = i * rank;
      for (let k = 0; k < rank; k++) a += u[row + k]! * z[k]!;
      out[i] = a;
      norm += a * a;
    }
    const s = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < dims; i++) out[i]! *= s;
    return out;
  }
}

/** The model id the shipped adapter was trained for (USE-lite's `model`). */
export const QUERY_ADAPTER_MODEL = USE_LITE_QUERY_ADAPTER.model;

let bundled: QueryAdapter | undefined;
function decode(b64: string): Float32Array {
  const buf = Buffer.from(b64, "base64");
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

/** The shipped USE-lite adapter, decoded on first use. */
export function bundledQueryAdapter(): QueryAdapter {
  const w = USE_LITE_QUERY_ADAPTER;
  bundled ??= new QueryAdapter(w.dims, w.rank, decode(w.u), decode(w.v));
  return bundled;
}

const byEmbedder = new WeakMap<object, QueryAdapter | null>();

/**
 * The adapter for a store's embedder: the shipped one when the embedder's
 * identity names the bundled USE-lite model (also through wrappers such as
 * `CachedEmbeddings`, which report the embedder they wrap), else undefined.
 */
export function queryAdapterFor(embeddings: object): QueryAdapter | undefined {
  let a = byEmbedder.get(embeddings);
  if (a === undefined) {
    a = embedderIdentity(embeddings).includes(QUERY_ADAPTER_MODEL) ? bundledQueryAdapter() : null;
    byEmbedder.set(embeddings, a);
  }
  return a ?? undefined;
}

/** `vector` through the embedder's adapter when it has one and the vector has the adapter's length; else `vector` itself. */
export function adaptQueryVector(embeddings: object, vector: number[]): number[] {
  const a = queryAdapterFor(embeddings);
  return a && vector.length === a.dims ? a.apply(vector) : vector;
}
