import { Embeddings } from "@langchain/core/embeddings";

/**
 * TEST DOUBLE: a deterministic fake embedder, not a real model.
 *
 * Each lower-cased word is hashed into one of `dims` buckets (bag of words),
 * and the vector is L2-normalised. Texts that share words are close; texts
 * that share none are (nearly) orthogonal. Used where the model's meaning is
 * not what is under test.
 */
export class FakeEmbeddings extends Embeddings {
  readonly dims: number;
  /** Identity reported to the store. */
  readonly model: string;
  /** Every text passed to embedDocuments, call by call. */
  readonly documentCalls: string[][] = [];
  /** Every text passed to embedQuery. */
  readonly queryCalls: string[] = [];
  /** When set, texts for which this returns true make the call throw. */
  failWhen?: (text: string) => boolean;
  /** When set, post-processes every vector (to simulate broken embedders). */
  mangle?: (vector: number[], text: string) => number[];

  constructor(options: { dims?: number; model?: string } = {}) {
    super({});
    this.dims = options.dims ?? 16;
    this.model = options.model ?? `fake-bag-of-words-${this.dims}`;
  }

  embedText(text: string): number[] {
    const v = new Array<number>(this.dims).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const w of words) {
      let h = 2166136261;
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
      v[(h >>> 0) % this.dims] += 1;
    }
    if (words.length === 0) v[0] = 1;
    const norm = Math.hypot(...v);
    const out = v.map((x) => x / norm);
    return this.mangle ? this.mangle(out, text) : out;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documentCalls.push([...texts]);
    for (const t of texts) if (this.failWhen?.(t)) throw new Error(`fake embedder failure on ${JSON.stringify(t)}`);
    return texts.map((t) => this.embedText(t));
  }

  async embedQuery(text: string): Promise<number[]> {
    this.queryCalls.push(text);
    if (this.failWhen?.(text)) throw new Error(`fake embedder failure on ${JSON.stringify(text)}`);
    return this.embedText(text);
  }
}
