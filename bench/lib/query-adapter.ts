/**
 * A low-rank query-side adapter for an embedder: q' = normalise(q + U·(Vᵀq)),
 * U and V of shape dims × rank. Only query vectors go through it, so stored
 * vectors and indexes stay as they are. Trained by bench/train-query-adapter.ts
 * (softmax over one person's facts, the answers as targets).
 */
import { Embeddings } from "@langchain/core/embeddings";

export class QueryAdapter {
  constructor(
    readonly dims: number,
    readonly rank: number,
    /** dims × rank, row-major. */
    readonly u: Float64Array,
    /** dims × rank, row-major. */
    readonly v: Float64Array,
  ) {}

  /** The adapted, L2-normalised query vector. */
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

/** An embedder whose documents are the inner one's and whose queries go through `adapter` (none: unchanged). */
export class AdaptedQueryEmbeddings extends Embeddings {
  constructor(
    private readonly inner: Embeddings,
    private readonly adapter: QueryAdapter | undefined,
  ) {
    super({});
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.inner.embedDocuments(texts);
  }
  async embedQuery(text: string): Promise<number[]> {
    const q = await this.inner.embedQuery(text);
    return this.adapter ? this.adapter.apply(q) : q;
  }
}
