/** Ranking quality over the answerable questions: top-1, top-3 and mean reciprocal rank. */
export interface RankMetrics {
  top1: number;
  top3: number;
  mrr: number;
  questions: number;
}

/** `ranks[i]` is the 1-based rank of the answer for question i, or Infinity when it was not returned. */
export function rankMetrics(ranks: number[]): RankMetrics {
  const n = ranks.length || 1;
  return {
    top1: ranks.filter((r) => r <= 1).length / n,
    top3: ranks.filter((r) => r <= 3).length / n,
    mrr: ranks.reduce((s, r) => s + (Number.isFinite(r) ? 1 / r : 0), 0) / n,
    questions: ranks.length,
  };
}

export const fmt = (x: number) => x.toFixed(3);
