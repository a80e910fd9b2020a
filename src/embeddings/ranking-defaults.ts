/**
 * Ranking defaults every store applies to a search with a `query`, beyond
 * the fusion's own constants (fusion.ts), in one place so that HNSWStore and
 * PostgresMemoryStore rank alike and `npm run bench:retrieval` /
 * `bench/tune-facts.ts` can measure the alternatives through the real
 * stores. The values were chosen on the facts development sets and checked
 * on their held-out people (docs/retrieval.md logs what was tried); only
 * benches and tests change them, never the package at run time.
 *
 * @internal
 */
export interface RankingDefaults {
  /**
   * How a replaced item (named by a newer one's `value.supersedes`) ranks
   * against its replacement: see store/superseded.ts.
   */
  superseded: "off" | "demote" | "promote";
  /**
   * Experimental, benches only (0: off, the default). A facts search (its
   * query through the facts adapter) that scans its selection exactly
   * re-ranks its vector side by the cosine of the adapted query with each
   * vector minus this weight times the mean of the vectors in scope; the
   * scores stay the plain cosines. Episode searches and searches without an
   * adapter never change.
   */
  factCentring: number;
  /** Experimental, with factCentring: the adapted query minus queryMeanWeight × this mean before that cosine. */
  queryMean?: number[];
  queryMeanWeight: number;
  /**
   * Experimental, benches only (0: off, the default): a hubness correction
   * (CSLS) for the same facts searches. The vector side re-ranked by
   * cos(q', d) − hubWeight × r(d), r(d) the mean cosine of the fact vector d
   * with its hubK nearest reference questions (hubQuestions, unit vectors
   * through the same adapter); the scores stay the plain cosines.
   */
  hubWeight: number;
  hubK: number;
  hubQuestions?: number[][];
  /** Experimental, benches only: the two re-rankings above on every exact search (an adapter the store does not know of, in the embedder). */
  experimentsOnEverySearch: boolean;
}

/** @internal */
export const RANKING: RankingDefaults = {
  superseded: "promote",
  factCentring: 0,
  queryMean: undefined, // a key of its own, so that withRanking restores it
  queryMeanWeight: 1,
  hubWeight: 0,
  hubK: 10,
  hubQuestions: undefined,
  experimentsOnEverySearch: false,
};

/** The defaults as shipped. @internal */
export const SHIPPED_RANKING: Readonly<RankingDefaults> = Object.freeze({ ...RANKING });

/** Runs `fn` with some defaults replaced, then restores them (benches and tests only). @internal */
export async function withRanking<T>(changes: Partial<RankingDefaults>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...RANKING };
  Object.assign(RANKING, changes);
  try {
    return await fn();
  } finally {
    Object.assign(RANKING, saved);
  }
}
