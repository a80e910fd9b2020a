import type { HybridRankOptions } from "./fusion.js";

/**
 * Ranking defaults every store applies to a search with a `query` (the
 * fusion's options: unset, fusion.ts's defaults), in one place so that HNSWStore and
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
  /** The fusion's options for every hybrid search (fusion.ts gives each unset one its default). */
  fusion: HybridRankOptions;
}

/** @internal */
export const RANKING: RankingDefaults = {
  superseded: "promote",
  fusion: {},
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
