import type { TermExpansion } from "../../src/embeddings/expansion.js";

/** Settings of {@link wordVectorExpansion}. */
export interface WordVectorExpansionOptions {
  /** Least cosine similarity for a vocabulary word to count. */
  threshold: number;
  /** At most this many vocabulary words per query word. */
  perWord: number;
  /** A match of similarity s counts `weight * s`. */
  weight: number;
  /** See {@link TermExpansion.gapsOnly}. */
  gapsOnly?: boolean;
}

/**
 * Query-side expansion by word vectors: each query word also matches the
 * words of the searched documents nearest to it (cosine of unit vectors),
 * restricted to that vocabulary (one person's facts: a few hundred words).
 */
export function wordVectorExpansion(vector: (word: string) => Float32Array | undefined, options: WordVectorExpansionOptions): TermExpansion {
  return {
    gapsOnly: options.gapsOnly === true,
    query(word, vocabulary) {
      const out = new Map<string, number>();
      const q = vector(word);
      if (!q) return out;
      const scored: Array<[string, number]> = [];
      for (const v of vocabulary) {
        if (v === word) continue;
        const d = vector(v);
        if (!d) continue;
        let s = 0;
        for (let i = 0; i < q.length; i++) s += q[i]! * d[i]!;
        if (s >= options.threshold) scored.push([v, s]);
      }
      scored.sort((a, b) => b[1] - a[1]);
      for (const [v, s] of scored.slice(0, options.perWord)) out.set(v, options.weight * s);
      return out;
    },
  };
}
