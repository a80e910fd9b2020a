import type { WordNet, WordNetPos } from "./expansion-wordnet.js";

/**
 * Term expansion for the keyword side: words a keyword index counts as weak
 * matches of the words actually written, so that "does she have animals?"
 * meets "has a dog" (dog → animal) and "which seafood?" meets "allergic to
 * prawns" (prawn → seafood). Weights are in (0, 1]: an expanded term counts
 * as that fraction of an occurrence (document side) or of a query term
 * (query side). Words are lower-case and unstemmed; the index stems them.
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

/** Settings of {@link wordNetExpansion}. */
export interface WordNetExpansionOptions {
  /** Senses of a word used, most frequent first. */
  senses: number;
  /** Hypernym levels above a document word's senses. */
  depth: number;
  /** Weight of a hypernym at depth d: `weight * decay ** (d - 1)`. */
  weight: number;
  decay: number;
  /** Weight of a document word's synonyms (depth 0); 0 adds none. */
  synonymWeight: number;
  /** Weight of a query word's synonyms; 0 adds none. */
  querySynonymWeight: number;
  /** Parts of speech looked up. */
  pos: WordNetPos[];
  /** See {@link TermExpansion.gapsOnly}. */
  gapsOnly?: boolean;
  /** See {@link TermExpansion.writtenFirst}. */
  writtenFirst?: boolean;
}

/** The head word of a WordNet lemma: the last of a noun phrase ("domestic animal"), the first of a verb phrase ("take in"). */
function head(lemma: string, pos: WordNetPos): string {
  const parts = lemma.split(" ");
  return (pos === "verb" ? parts[0] : parts[parts.length - 1])!;
}

/** Expansion by WordNet hypernyms (document side) and synonyms (both sides). */
export function wordNetExpansion(wordNet: WordNet, options: WordNetExpansionOptions): TermExpansion {
  const docCache = new Map<string, Map<string, number>>();
  const queryCache = new Map<string, Map<string, number>>();
  const related = (word: string, depth: number, weightAt: (d: number) => number) => {
    const out = new Map<string, number>();
    for (const pos of options.pos) {
      for (const [lemma, d] of wordNet.related(word, pos, { senses: options.senses, depth })) {
        const w = weightAt(d);
        if (w <= 0) continue;
        const h = head(lemma, pos);
        if (h === word) continue;
        out.set(h, Math.max(out.get(h) ?? 0, w));
      }
    }
    return out;
  };
  return {
    gapsOnly: options.gapsOnly === true,
    writtenFirst: options.writtenFirst === true,
    document(word) {
      let m = docCache.get(word);
      if (!m) {
        m = related(word, options.depth, (d) => (d === 0 ? options.synonymWeight : options.weight * options.decay ** (d - 1)));
        docCache.set(word, m);
      }
      return m;
    },
    query(word) {
      if (options.querySynonymWeight <= 0) return new Map();
      let m = queryCache.get(word);
      if (!m) {
        m = related(word, 0, () => options.querySynonymWeight);
        queryCache.set(word, m);
      }
      return m;
    },
  };
}

/**
 * The expansion every new keyword index uses unless given its own (none by
 * default). Benches set it to measure expansions through the real stores.
 *
 * @internal
 */
export const KEYWORD_EXPANSION: { current?: TermExpansion } = {};
