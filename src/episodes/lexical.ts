import { tokenize } from "../embeddings/tokenize.js";
import type { Episode } from "./episode.js";

const K1 = 1.2;
const B = 0.5;

/**
 * BM25 of the query against the turn BEFORE each candidate (over the
 * candidates only: no store index, no embedding), so a reply ("Vancouver, I
 * only got home on Sunday") is ranked by the words of the question it answers
 * ("Where was the whale watching?"). The turn's own words are not counted:
 * the store's search has ranked them already. Document frequencies come from
 * the previous turns given. Returns a score per candidate, in input order
 * (0 when there is no previous turn or no term matches).
 */
export function previousTurnScores(query: string, previous: ReadonlyArray<Episode | undefined>): number[] {
  const terms = new Set(tokenize(query));
  const docs = previous.map((p) => (p ? termCounts(p.text) : undefined));
  const df = new Map<string, number>();
  let n = 0;
  let sum = 0;
  for (const d of docs) {
    if (!d) continue;
    n++;
    sum += d.length;
    for (const t of d.counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const avg = sum / (n || 1) || 1;
  return docs.map((d) => {
    if (!d) return 0;
    let score = 0;
    for (const term of terms) {
      const tf = d.counts.get(term) ?? 0;
      if (tf === 0) continue;
      const f = df.get(term)!;
      score += Math.log(1 + (n - f + 0.5) / (f + 0.5)) * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / avg)));
    }
    return score;
  });
}

function termCounts(text: string): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  const terms = tokenize(text);
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return { counts, length: terms.length };
}
