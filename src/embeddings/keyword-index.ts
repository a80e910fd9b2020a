import { checkBoolean, checkNumber, checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { InvalidArgumentError } from "../errors.js";
import { KEYWORD_EXPANSION, type TermExpansion } from "./expansion.js";
import { stem, tokenize } from "./tokenize.js";

/** One keyword match: a document id and its BM25 score (higher is better). */
export interface KeywordHit {
  id: string;
  score: number;
}

/** Options for {@link KeywordIndex}. */
export interface KeywordIndexOptions {
  /**
   * BM25 term-frequency saturation. Higher lets repeated words count more.
   * @default 1.2
   */
  k1?: number;
  /**
   * BM25 length normalisation, from 0 (none) to 1 (full). Full
   * normalisation punishes long conversation turns that mention a rare name
   * once; the default was tuned with `npm run bench:retrieval`.
   * @default 0.5
   */
  b?: number;
  /**
   * Apply the light stemmer from `tokenize.ts` to documents and queries.
   * @default true
   */
  stemming?: boolean;
}

/** Options for {@link KeywordIndex.search}. */
export interface KeywordSearchOptions {
  /** Maximum number of hits to return. */
  limit: number;
  /**
   * Only documents in this set (or accepted by this predicate) may match.
   * @default undefined (every document)
   */
  candidates?: ReadonlySet<string> | ((id: string) => boolean);
}

/**
 * A document's terms as a {@link KeywordIndex} counts them
 * ({@link KeywordIndex.document}): kept, it can be ranked again
 * ({@link KeywordIndex.rankDocuments}) without reading its texts again.
 */
export interface KeywordDocument {
  /** term → frequency in the document */
  readonly terms: ReadonlyMap<string, number>;
  /** How many terms the texts hold, repeats included. */
  readonly length: number;
}

interface Doc {
  /** term → frequency in this document (an expanded term counts its weight) */
  terms: ReadonlyMap<string, number>;
  /** Written terms only: expansions do not make a document longer. */
  length: number;
  /** The terms present only by expansion. */
  expanded?: Set<string>;
}

/**
 * An incremental BM25 index over short texts, with an inverted index so that
 * a search only visits the postings of the query's terms, never every
 * document.
 *
 * @example
 * ```ts
 * const index = new KeywordIndex();
 * index.add("m1", ["Adopted a beagle named Biscuit in May 2023"]);
 * index.search("biscuit the dog", { limit: 5 }); // [{ id: "m1", score: … }]
 * ```
 */
export class KeywordIndex {
  readonly k1: number;
  readonly b: number;
  readonly stemming: boolean;
  private readonly docs = new Map<string, Doc>();
  private readonly postings = new Map<string, Map<string, number>>();
  private totalLength = 0;
  private readonly expansion: TermExpansion | undefined;
  /** term → one written (unstemmed) word it came from, for query-side expansion. */
  private readonly written = new Map<string, string>();
  /** term → number of documents that write it (expansions not counted). */
  private readonly writtenDf = new Map<string, number>();

  constructor(options: KeywordIndexOptions = {}) {
    checkOptions(options, "KeywordIndex options", OPTION_KEYS.keywordIndex);
    checkNumber(options.k1, "k1", { min: 0 });
    checkNumber(options.b, "b", { min: 0, max: 1 });
    checkBoolean(options.stemming, "stemming");
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.5;
    this.stemming = options.stemming ?? true;
    this.expansion = KEYWORD_EXPANSION.current;
    if (!Number.isFinite(this.k1) || this.k1 < 0) {
      throw new InvalidArgumentError(`KeywordIndex k1 must be a finite number >= 0, got ${String(options.k1)}`);
    }
    if (!Number.isFinite(this.b) || this.b < 0 || this.b > 1) {
      throw new InvalidArgumentError(`KeywordIndex b must be between 0 and 1, got ${String(options.b)}`);
    }
  }

  /** Number of documents in the index. */
  get size(): number {
    return this.docs.size;
  }

  /** Whether a document with this id is indexed. */
  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** Splits text into terms exactly as the index does. */
  terms(text: string): string[] {
    if (!this.expansion?.stem) return tokenize(text, { stemming: this.stemming });
    return tokenize(text, { stemming: false }).map((w) => this.term(w));
  }

  /** The index term of one written word. */
  private term(word: string): string {
    if (!this.stemming) return word;
    return this.expansion?.stem ? this.expansion.stem(word) : stem(word);
  }

  /**
   * Indexes the texts (for example the indexed fields of one item) as one
   * document, replacing any earlier document with the same id.
   */
  add(id: string, texts: string[]): void {
    if (typeof id !== "string") throw new InvalidArgumentError(`KeywordIndex id must be a string, got ${typeof id}`);
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) {
      throw new InvalidArgumentError(`KeywordIndex.add("${id}") needs an array of strings`);
    }
    if (!this.expansion) return this.insert(id, this.countTerms(texts));
    this.remove(id);
    const words: string[] = [];
    const { terms, length } = this.countTerms(texts, (word, term) => {
      if (!this.written.has(term)) this.written.set(term, word);
      words.push(word);
    });
    const doc: Doc = { terms, length };
    if (this.expansion?.document) {
      const expanded = new Map<string, number>();
      for (const word of words) {
        for (const [w, weight] of this.expansion.document(word)) {
          for (const term of this.terms(w)) {
            if (!terms.has(term)) expanded.set(term, Math.max(expanded.get(term) ?? 0, weight));
          }
        }
      }
      for (const [term, weight] of expanded) terms.set(term, weight);
      if (expanded.size > 0) doc.expanded = new Set(expanded.keys());
    }
    this.docs.set(id, doc);
    this.totalLength += length;
    for (const [term, tf] of terms) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = new Map()));
      list.set(id, tf);
      if (this.expansion && !doc.expanded?.has(term)) this.writtenDf.set(term, (this.writtenDf.get(term) ?? 0) + 1);
    }
  }

  /**
   * The document {@link add} indexes for these texts (the same terms and
   * length), to keep while the texts do not change and rank with
   * {@link rankDocuments}, in this index or another with the same options.
   */
  document(texts: string[]): KeywordDocument {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) throw new InvalidArgumentError("KeywordIndex.document needs an array of strings");
    return this.countTerms(texts);
  }

  /** Each written word's term, counted (`onWord` sees every word and its term). */
  private countTerms(texts: string[], onWord?: (word: string, term: string) => void): { terms: Map<string, number>; length: number } {
    const terms = new Map<string, number>();
    let length = 0;
    for (const text of texts) {
      for (const word of tokenize(text, { stemming: false })) {
        const term = this.term(word);
        terms.set(term, (terms.get(term) ?? 0) + 1);
        onWord?.(word, term);
        length++;
      }
    }
    return { terms, length };
  }

  /**
   * Ranks documents made by {@link document} by BM25 against the query,
   * best first, exactly as `search` would if this index held those documents
   * and no others (the statistics are theirs: their number, lengths and
   * term counts), without building an index of them. Documents that share no
   * term with the query are not returned. Not for an index with term
   * expansion (which reads the words themselves).
   */
  rankDocuments(query: string, docs: ReadonlyArray<readonly [id: string, doc: KeywordDocument]>, limit: number): KeywordHit[] {
    if (typeof query !== "string") throw new InvalidArgumentError(`KeywordIndex query must be a string, got ${typeof query}`);
    if (!Number.isInteger(limit) || limit < 0) throw new InvalidArgumentError(`KeywordIndex rankDocuments limit must be an integer >= 0, got ${String(limit)}`);
    if (this.expansion) throw new InvalidArgumentError("KeywordIndex.rankDocuments: this index expands terms; add the texts and search instead");
    const n = docs.length;
    if (n === 0 || limit === 0) return [];
    let total = 0;
    for (const [, doc] of docs) total += doc.length;
    const avgdl = total / n || 1;
    const scores = new Map<string, number>();
    for (const term of this.queryTerms(query).keys()) {
      let df = 0;
      for (const [, doc] of docs) if (doc.terms.has(term)) df++;
      if (df === 0) continue;
      const idf = this.idf(df, n);
      for (const [id, doc] of docs) {
        const tf = doc.terms.get(term);
        if (tf !== undefined) scores.set(id, (scores.get(id) ?? 0) + this.termScore(idf, tf, doc.length, avgdl));
      }
    }
    return topK(scores, limit);
  }

  /** BM25's share of one term in one document. */
  private termScore(idf: number, tf: number, dl: number, avgdl: number): number {
    return (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * dl) / avgdl));
  }

  /** Indexes a document, replacing any earlier one with the same id. */
  private insert(id: string, doc: KeywordDocument): void {
    this.remove(id);
    this.docs.set(id, { terms: doc.terms, length: doc.length });
    this.totalLength += doc.length;
    for (const [term, tf] of doc.terms) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = new Map()));
      list.set(id, tf);
    }
  }

  /** Removes a document; does nothing when the id is not indexed. */
  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    for (const term of doc.terms.keys()) {
      const list = this.postings.get(term);
      list?.delete(id);
      if (list && list.size === 0) this.postings.delete(term);
      if (this.expansion && !doc.expanded?.has(term)) {
        const df = (this.writtenDf.get(term) ?? 1) - 1;
        if (df > 0) this.writtenDf.set(term, df);
        else this.writtenDf.delete(term);
      }
    }
    this.totalLength -= doc.length;
    this.docs.delete(id);
  }

  /** Lucene's non-negative BM25 idf for a term in `df` of `n` documents. */
  private idf(df: number, n: number): number {
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Inverse document frequency of a query word (0 when unseen). */
  termIdf(word: string): number {
    const [term] = this.terms(word);
    const df = term === undefined ? 0 : (this.postings.get(term)?.size ?? 0);
    return df === 0 ? 0 : this.idf(df, this.docs.size);
  }

  /**
   * Ranks documents by BM25 against the query, best first. Documents that
   * share no term with the query are not returned.
   */
  search(query: string, options: KeywordSearchOptions): KeywordHit[] {
    if (typeof query !== "string") throw new InvalidArgumentError(`KeywordIndex query must be a string, got ${typeof query}`);
    const { limit, candidates } = options;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new InvalidArgumentError(`KeywordIndex search limit must be an integer >= 0, got ${String(limit)}`);
    }
    const n = this.docs.size;
    if (n === 0 || limit === 0) return [];
    const accept =
      candidates === undefined ? undefined : typeof candidates === "function" ? candidates : (id: string) => candidates.has(id);
    const avgdl = this.totalLength / n || 1;
    const scores = new Map<string, number>();
    const writtenFirst = this.expansion?.writtenFirst === true;
    const written = new Set<string>();
    for (const [term, weight] of this.queryTerms(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      // With `gapsOnly`, a term some document writes matches only where it is written.
      const writtenOnly = this.expansion?.gapsOnly === true && (this.writtenDf.get(term) ?? 0) > 0;
      const idf = weight * this.idf(writtenOnly ? this.writtenDf.get(term)! : list.size, n);
      for (const [id, tf] of list) {
        if (accept && !accept(id)) continue;
        const doc = this.docs.get(id)!;
        if (writtenOnly && doc.expanded?.has(term)) continue;
        const s = this.termScore(idf, tf, doc.length, avgdl);
        scores.set(id, (scores.get(id) ?? 0) + s);
        if (writtenFirst && weight === 1 && !doc.expanded?.has(term)) written.add(id);
      }
    }
    if (!writtenFirst || written.size === scores.size) return topK(scores, limit);
    // Documents found only through expansions follow every written match.
    const first = new Map([...scores].filter(([id]) => written.has(id)));
    const rest = new Map([...scores].filter(([id]) => !written.has(id)));
    const head = topK(first, limit);
    return head.length >= limit ? head : head.concat(topK(rest, limit - head.length));
  }

  /** The query's terms with their weights: 1 for written ones, less for expansions. */
  private queryTerms(query: string): Map<string, number> {
    const out = new Map<string, number>();
    const words = tokenize(query, { stemming: false });
    for (const word of words) out.set(this.term(word), 1);
    if (!this.expansion?.query) return out;
    const vocabulary = [...this.written].filter(([term]) => this.writtenDf.has(term)).map(([, word]) => word);
    for (const word of words) {
      if (this.expansion.gapsOnly && this.writtenDf.has(this.term(word))) continue;
      for (const [w, weight] of this.expansion.query(word, vocabulary)) {
        for (const term of this.terms(w)) {
          if (this.postings.has(term) && (out.get(term) ?? 0) < weight) out.set(term, weight);
        }
      }
    }
    return out;
  }
}

/** The `limit` best entries, best first; ties broken by id for stable order. */
function topK(scores: Map<string, number>, limit: number): KeywordHit[] {
  const better = (a: KeywordHit, b: KeywordHit) => a.score > b.score || (a.score === b.score && a.id < b.id);
  if (scores.size <= limit * 4) {
    const all = [...scores].map(([id, score]) => ({ id, score }));
    return all.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0)).slice(0, limit);
  }
  // Min-heap of the best `limit` hits: O(n log limit).
  const heap: KeywordHit[] = [];
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  for (const [id, score] of scores) {
    const hit = { id, score };
    if (heap.length < limit) {
      heap.push(hit);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!better(heap[p]!, heap[i]!)) break;
        swap(i, p);
        i = p;
      }
    } else if (better(hit, heap[0]!)) {
      heap[0] = hit;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && better(heap[m]!, heap[l]!)) m = l;
        if (r < heap.length && better(heap[m]!, heap[r]!)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : 1));
}
