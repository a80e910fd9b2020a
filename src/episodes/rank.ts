import type { Episode } from "./episode.js";

/** Tuning for {@link rerankEpisodes}. */
export interface EpisodeRankOptions {
  /**
   * Most turns from one session (a thread on one date) among the first
   * `limit` results; the rest move down, so a question whose answer is spread
   * over several sessions ("which cities has she visited?") gets more than one
   * of them. `0` turns the cap off.
   * @default 3
   */
  maxPerSession?: number;
  /**
   * For a "when" question, a turn that says when something happened
   * ("yesterday", "last week", "in May", "two days ago") has its score
   * multiplied by this.
   * @default 1.6
   */
  timeBoost?: number;
  /**
   * The rank constant of the store's order: the hit at rank r (from 1)
   * starts from `1 / (k + r)`.
   * @default 3
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
 * question favours turns that place an event in time, and no one session
 * fills more than `maxPerSession` of the first `limit` places. Returns at
 * most `limit` episodes.
 */
export function rerankEpisodes(query: string, hits: readonly Episode[], limit: number, options: EpisodeRankOptions = {}): Episode[] {
  const k = options.k ?? 3;
  const boost = options.timeBoost ?? 1.6;
  const cap = options.maxPerSession ?? 3;
  const when = isWhenQuestion(query);
  const scored = hits.map((episode, i) => ({
    episode,
    score: (1 / (k + i + 1)) * (when && mentionsTime(episode.text) ? boost : 1),
    order: i,
  }));
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  if (cap <= 0) return scored.slice(0, limit).map((s) => s.episode);
  const perSession = new Map<string, number>();
  const first: Episode[] = [];
  const overflow: Episode[] = [];
  for (const { episode } of scored) {
    const session = `${episode.threadId}\n${episode.date}`;
    const n = perSession.get(session) ?? 0;
    if (n < cap) {
      perSession.set(session, n + 1);
      first.push(episode);
    } else overflow.push(episode);
  }
  return [...first, ...overflow].slice(0, limit);
}
