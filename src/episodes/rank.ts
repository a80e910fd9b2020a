import type { Episode } from "./episode.js";

/**
 * Tuning for {@link rerankEpisodes}. The defaults were chosen on the `tune`
 * split of bench/data/conversations-large.json (c0–c2), never on the held-out split.
 */
export interface EpisodeRankOptions {
  /**
   * Diversity over sessions (a thread on one date): each turn already picked
   * from a session multiplies the score of that session's next turns by this,
   * so a question whose answer is spread over several sessions ("which cities
   * has she visited?") gets more than one of them. `1` turns it off.
   * @default 0.9
   */
  sessionDecay?: number;
  /**
   * For a "when" question, a turn that says when something happened
   * ("yesterday", "last week", "in May", "two days ago") has its score
   * multiplied by this.
   * @default 2.5
   */
  timeBoost?: number;
  /**
   * The rank constant of the store's order: the hit at rank r (from 1)
   * starts from `1 / (k + r)`.
   * @default 10
   */
  k?: number;
}

const WHEN_QUESTION = /\b(when|what (day|date|week|month|year|time)|how long ago|since when|which (day|date|week|month|year))\b/i;

const TIME_WORDS =
  "yesterday|today|tonight|tomorrow|this (morning|afternoon|evening|week|weekend|month|year)|" +
  "last (night|week|weekend|month|year|spring|summer|autumn|fall|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|" +
  "next (week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|" +
  "\\w+ (days?|weeks?|months?|years?) ago|ago|since|recently|just|on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|" +
  "january|february|march|april|june|july|august|september|october|november|december|\\b(19|20)\\d\\d\\b";
const TIME_EXPRESSION = new RegExp(`\\b(${TIME_WORDS})\\b`, "i");

/** Whether a question asks when something happened. */
export function isWhenQuestion(query: string): boolean {
  return WHEN_QUESTION.test(query);
}

/** Whether a turn says when something happened. */
export function mentionsTime(text: string): boolean {
  return TIME_EXPRESSION.test(text);
}

/**
 * Re-orders the store's hits (best first) for conversational recall: a "when"
 * question favours turns that place an event in time, and each session's
 * later turns are discounted by `sessionDecay` per turn already picked from
 * it (greedy, like MMR with "same session" as the similarity). Returns at most
 * `limit` episodes.
 */
export function rerankEpisodes(query: string, hits: readonly Episode[], limit: number, options: EpisodeRankOptions = {}): Episode[] {
  const k = options.k ?? 10;
  const boost = options.timeBoost ?? 2.5;
  const decay = options.sessionDecay ?? 0.9;
  const when = isWhenQuestion(query);
  const scored = hits.map((episode, i) => ({
    episode,
    score: (1 / (k + i + 1)) * (when && mentionsTime(episode.text) ? boost : 1),
    order: i,
  }));
  if (decay >= 1) return scored.sort((a, b) => b.score - a.score || a.order - b.order).slice(0, limit).map((s) => s.episode);
  const picked = new Map<string, number>();
  const out: Episode[] = [];
  const left = [...scored];
  while (out.length < limit && left.length > 0) {
    let best = 0;
    let bestScore = -Infinity;
    left.forEach((s, i) => {
      const v = s.score * decay ** (picked.get(sessionOf(s.episode)) ?? 0);
      if (v > bestScore || (v === bestScore && s.order < left[best]!.order)) [best, bestScore] = [i, v];
    });
    const [chosen] = left.splice(best, 1);
    const session = sessionOf(chosen!.episode);
    picked.set(session, (picked.get(session) ?? 0) + 1);
    out.push(chosen!.episode);
  }
  return out;
}

const sessionOf = (e: Episode) => `${e.threadId}\n${e.date}`;
