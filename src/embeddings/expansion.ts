/**
 * Term expansion for the keyword side: words a keyword index counts as weak
 * matches of the words actually written, so that "does she have animals?"
 * meets "has a dog" (dog → animal) and "which seafood?" meets "allergic to
 * prawns" (prawn → seafood). Weights are in (0, 1]: an expanded term counts
 * as that fraction of an occurrence (document side) or of a query term
 * (query side). Words are lower-case and unstemmed; the index stems them.
 * None is on by default: bench/tune-factslex.ts measures the ones in
 * bench/lib/ (WordNet, word vectors) through the real stores.
 *
 * @internal
 */
export interface TermExpansion {
  /** Related words an indexed word also stands for (hypernyms, synonyms). */
  document?(word: string): ReadonlyMap<string, number>;
  /**
   * Related words a query word may match. `vocabulary` is the written words
   * (unstemmed, one per index term) of the documents being searched, so an
   * expander can restrict itself to words that can match at all.
   */
  query?(word: string, vocabulary: readonly string[]): ReadonlyMap<string, number>;
  /**
   * Expand only where the written words leave a gap: a query word that some
   * document writes matches only the documents that write it, and only a
   * query word no document writes is expanded on the query side.
   */
  gapsOnly?: boolean;
  /** Rank the documents found only through expansions after every document with a written match. */
  writtenFirst?: boolean;
  /** Replaces the tokenizer's light stemmer (for documents and queries alike). */
  stem?(word: string): string;
}

/**
 * The expansion every new keyword index uses unless given its own (none by
 * default). Benches set it to measure expansions through the real stores.
 *
 * @internal
 */
export const KEYWORD_EXPANSION: { current?: TermExpansion } = {};
