import { InvalidArgumentError } from "../errors.js";

/** An id with a score, in a list sorted best first. */
export interface RankedHit {
  id: string;
  score: number;
}

/** Tuning for {@link hybridRank}. The defaults come from `npm run bench:retrieval`. */
export interface HybridRankOptions {
  /**
   * The RRF constant: a hit at rank r (from 1) earns `weight / (k + r)`.
   * Smaller values give the first few ranks more say; the common k=60 makes
   * fusion nearly blind to which list is sure of its first hit.
   * @default 1
   */
  k?: number;
  /**
   * Weight of the vector ranking for a query with no keyword signals.
   * @default 1
   */
  vectorWeight?: number;
  /**
   * Weight of the keyword ranking for a query with no keyword signals.
   * @default 0.5
   */
  keywordWeight?: number;
  /**
   * Added to the keyword weight for each keyword signal in the query (a
   * capitalised name, a number or date, a quoted phrase), up to
   * `maxSignals` signals.
   * @default 1
   */
  signalBoost?: number;
  /**
   * The most signals that count toward `signalBoost`.
   * @default 2
   */
  maxSignals?: number;
}

/** Words that are often capitalised without being names. */
const COMMON_CAPITALISED = new Set(
  "i i'm i've i'd i'll what which who whom whose when where why how do does did is are was were can could should would will have has had my me the a an in on at to for of and or but if tell please remember any anything".split(
    " ",
  ),
);

/**
 * Counts the signs that a query is after exact words rather than meaning:
 * capitalised words that are not at the start of a sentence and not common
 * words (names, places, brands), numbers and dates, and quoted phrases.
 */
export function keywordSignals(query: string): number {
  let signals = 0;
  signals += (query.match(/"[^"]+"|“[^”]+”/g) ?? []).length;
  signals += (query.match(/\p{N}+/gu) ?? []).length;
  const sentences = query.split(/[.!?\n]+/);
  for (const sentence of sentences) {
    const words = sentence.match(/[\p{L}'’]+/gu) ?? [];
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!;
      if (/^\p{Lu}/u.test(w) && !COMMON_CAPITALISED.has(w.toLowerCase())) signals++;
    }
  }
  return signals;
}

/**
 * Fuses a vector ranking and a keyword ranking by weighted reciprocal rank
 * fusion: each list gives a hit at rank r (from 1) `weight / (k + r)`, and
 * hits are returned by the sum, best first. The keyword weight grows with
 * the query's keyword signals (see {@link keywordSignals}), so "When did I
 * fly to Lisbon?" leans on BM25 while "Which antibiotics should I avoid?"
 * leans on meaning. Ties keep the vector order.
 *
 * Only the order matters to the input; `score` in the result is the raw
 * fused score. HNSWStore reports, in this order, each item's cosine capped
 * by the score above it (see `retrieval` in HNSWStoreOptions).
 */
export function hybridRank(
  input: { query: string; vectorHits: RankedHit[]; keywordHits: RankedHit[] },
  options: HybridRankOptions = {},
): RankedHit[] {
  const k = options.k ?? 1;
  const vectorWeight = options.vectorWeight ?? 1;
  const baseKeyword = options.keywordWeight ?? 0.5;
  const boost = options.signalBoost ?? 1;
  const maxSignals = options.maxSignals ?? 2;
  for (const [name, v] of Object.entries({ k, vectorWeight, keywordWeight: baseKeyword, signalBoost: boost, maxSignals })) {
    if (!Number.isFinite(v) || v < 0) throw new InvalidArgumentError(`hybridRank option ${name} must be a finite number >= 0, got ${String(v)}`);
  }
  if (!Array.isArray(input.vectorHits) || !Array.isArray(input.keywordHits)) {
    throw new InvalidArgumentError("hybridRank needs vectorHits and keywordHits arrays");
  }
  const keywordWeight = baseKeyword + boost * Math.min(maxSignals, keywordSignals(input.query ?? ""));
  const fused = new Map<string, { score: number; order: number }>();
  const addList = (hits: RankedHit[], weight: number, orderBase: number) => {
    const seen = new Set<string>();
    hits.forEach((hit, i) => {
      if (seen.has(hit.id)) return;
      seen.add(hit.id);
      const entry = fused.get(hit.id);
      const s = weight / (k + i + 1);
      if (entry) entry.score += s;
      else fused.set(hit.id, { score: s, order: orderBase + i });
    });
  };
  addList(input.vectorHits, vectorWeight, 0);
  addList(input.keywordHits, keywordWeight, input.vectorHits.length);
  return [...fused]
    .sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order)
    .map(([id, { score }]) => ({ id, score }));
}

/**
 * Scores for a fused order, as every store reports them: each scored entry
 * keeps its own score (a cosine) capped by the one above it, so scores never
 * go up down the list and never exceed the entry's own similarity; entries
 * without a score follow, in order.
 */
export function capDownTheList<T extends { score?: number }>(ranked: readonly T[]): T[] {
  const out: T[] = [];
  const unscored: T[] = [];
  let cap = Infinity;
  for (const r of ranked) {
    if (r.score === undefined) {
      unscored.push(r);
      continue;
    }
    cap = Math.min(cap, r.score);
    out.push(r.score === cap ? r : { ...r, score: cap });
  }
  return unscored.length ? out.concat(unscored) : out;
}

/**
 * Searches planned as an HNSW walk rank (and, in hybrid mode, fuse) the best
 * this-many candidates of each ranking, or `offset + limit` when that is
 * more. The pool never depends on the page asked for below that depth, so
 * page N of a search is the same slice of one ranking whatever the page size.
 */
export const RANK_POOL = 50;
