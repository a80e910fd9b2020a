import type { Episode } from "./episode.js";

/** A scored candidate of {@link rerankEpisodes}: its final score and its first-stage order (ties). */
export interface ScoredEpisode {
  episode: Episode;
  score: number;
  order: number;
  /** The turn's content terms (tokenized, stemmed, stop words dropped). */
  terms: readonly string[];
}

/** How {@link selectEpisodes} picks among the scored candidates. */
export interface SelectOptions {
  /** × per turn already picked from the same session (1: off). */
  sessionDecay: number;
  /** Leave out a turn whose text is the same as a better one's. */
  collapseRepeats: boolean;
}

const sessionOf = (e: Episode) => `${e.threadId}\n${e.date}`;
const sameText = (e: Episode) => e.text.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * The best `limit` candidates, best first, by score (ties by first-stage
 * order). With `collapseRepeats`, a turn whose text (case and spacing aside)
 * was already picked is skipped: a line said in many sessions ("There's a new
 * Thai place opening near me.") takes one place, not five. With
 * `sessionDecay < 1`, greedily: each pick is the candidate whose score times
 * `sessionDecay` per turn already picked from its session is highest (the
 * factor is at most 1, so the scan stops at the first candidate whose own
 * score cannot win).
 */
export function selectEpisodes(scored: ScoredEpisode[], limit: number, o: SelectOptions): Episode[] {
  const left = scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const said = new Set<string>();
  const repeated = (s: ScoredEpisode) => o.collapseRepeats && said.has(sameText(s.episode));
  const out: Episode[] = [];
  const take = (s: ScoredEpisode) => {
    out.push(s.episode);
    if (o.collapseRepeats) said.add(sameText(s.episode));
  };
  if (o.sessionDecay >= 1) {
    for (const s of left) {
      if (out.length >= limit) break;
      if (!repeated(s)) take(s);
    }
    return out;
  }
  const perSession = new Map<string, number>();
  while (out.length < limit && left.length > 0) {
    let best = -1;
    let bestValue = -Infinity;
    for (let i = 0; i < left.length; i++) {
      const c = left[i]!;
      if (c.score < bestValue) break;
      if (repeated(c)) continue;
      const value = c.score * o.sessionDecay ** (perSession.get(sessionOf(c.episode)) ?? 0);
      if (value > bestValue || (value === bestValue && c.order < left[best]!.order)) [best, bestValue] = [i, value];
    }
    if (best < 0) break;
    const [chosen] = left.splice(best, 1);
    const session = sessionOf(chosen!.episode);
    perSession.set(session, (perSession.get(session) ?? 0) + 1);
    take(chosen!);
  }
  return out;
}
