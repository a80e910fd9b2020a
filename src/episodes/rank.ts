import { tokenize } from "../embeddings/tokenize.js";
import { InvalidArgumentError } from "../errors.js";
import { episodeKey, type Episode } from "./episode.js";
import { previousTurnScores } from "./lexical.js";
import { addBridgeCredit } from "./bridge.js";
import { selectEpisodes, type ScoredEpisode } from "./select.js";

/**
 * Tuning for {@link rerankEpisodes}. The defaults were chosen on the `tune`
 * splits of both development sets (bench/data/conversations-large.json c0–c3
 * and bench/data/chats-dev2.json d0–d3) and kept only where they also helped
 * both held-out splits: see docs/episodes.md.
 */
export interface EpisodeRankOptions {
  /**
   * The rank constant of the store's order: the hit at rank r (from 1)
   * starts from `1 / (k + r)`.
   * @default 10
   */
  k?: number;
  /**
   * Share of a hit's score that the turn right after it (in its thread)
   * also earns: the reply to a turn that names the topic ("Are you still
   * playing Civ?" → "A month now, every evening") often holds the answer
   * without naming it. `0` turns it off.
   * @default 0.65
   */
  replyWeight?: number;
  /**
   * Share of a hit's score that the turn right before it also earns (the
   * question a matching answer replies to). `0` turns it off.
   * @default 0.15
   */
  promptWeight?: number;
  /**
   * How many turns on each side a hit lends its score to: the turn at
   * distance d gets `replyWeight` (after) or `promptWeight` (before) times
   * `0.5^(d-1)` of it. At most {@link MAX_WINDOW}.
   * @default 2
   */
  window?: number;
  /**
   * Turns with fewer content words than this ("Don't we all.", "When are
   * they not?": every word a stop word) carry no fact to recall; a turn with
   * n < minWords content words has its score multiplied by `(n + 1) / (minWords + 1)`.
   * `0` turns it off.
   * @default 5
   */
  minWords?: number;
  /**
   * A turn said by a speaker the question names ("What did Ana say about…")
   * has its score multiplied by this. `1` turns it off.
   * @default 2
   */
  speakerBoost?: number;
  /**
   * Diversity over sessions (a thread on one date): each turn already picked
   * from a session multiplies the score of that session's next turns by this.
   * `1` turns it off.
   * @default 1
   */
  sessionDecay?: number;
  /**
   * For a "when" question, a turn that says when something happened
   * ("yesterday", "last week", "in May", "two days ago") has its score
   * multiplied by this. `1` turns it off.
   * @default 2.5
   */
  timeBoost?: number;
  /**
   * Weight of a keyword ranking of the candidates (the store's hits and the
   * turns around them) by the words of the turn BEFORE each one (BM25 over
   * the candidates), fused like the store's order: the candidate at rank r
   * of it earns `contextWeight / (k + r)`. The reply to a question that names
   * the topic ("Where was the whale watching?" → "Vancouver, I only got home
   * on Sunday") is found without a second vector per turn. `0` turns it off
   * (measured, not a default: it helped dev1 held out but not dev2's; see
   * docs/episodes.md).
   * @default 0
   */
  contextWeight?: number;
  /**
   * Leave out a turn whose text (case and spacing aside) is the same as a
   * better-ranked one's: a line said in many sessions ("There's a new Thai
   * place opening near me.") takes one place in the results, not five.
   * `false` keeps every copy.
   * @default true
   */
  collapseRepeats?: boolean;
  /**
   * Entity bridging, a second hop without a second query: a name (a word
   * written with a capital inside a sentence: a person, a place, a title)
   * that one of the 20 best turns says and the question does not ("Callum
   * announced he's off to Singapore", for "what does Priya's brother do?")
   * links it to the other candidates that say it ("Callum says the chef job
   * is going really well"); each earns `bridgeWeight` × the best such turn's
   * score. Speakers' names and names said by more than 3 candidates are not
   * bridges. `0` turns it off.
   * @default 0.25
   */
  bridgeWeight?: number;
}

/** The defaults of {@link EpisodeRankOptions}. */
export const EPISODE_RANK_DEFAULTS: Required<EpisodeRankOptions> = {
  k: 10,
  replyWeight: 0.65,
  promptWeight: 0.15,
  window: 2,
  minWords: 5,
  speakerBoost: 2,
  sessionDecay: 1,
  timeBoost: 2.5,
  contextWeight: 0,
  collapseRepeats: true,
  bridgeWeight: 0.25,
};

const WHEN_QUESTION = /\b(when|what (day|date|week|month|year|time)|how long ago|since when|which (day|date|week|month|year))\b/i;

const TIME_WORDS =
  "yesterday|today|tonight|tomorrow|this (morning|afternoon|evening|week|weekend|month|year)|" +
  "last (night|week|weekend|month|year|spring|summer|autumn|fall|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|" +
  "next (week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|" +
  "\\w+ (days?|weeks?|months?|years?) ago|ago|since|recently|just|on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|" +
  "january|february|march|april|june|july|august|september|october|november|december|\\b(19|20)\\d\\d\\b";
const TIME_EXPRESSION = new RegExp(`\\b(${TIME_WORDS})\\b`, "i");

/** The most turns on each side a hit may lend its score to (each one is a read). */
export const MAX_WINDOW = 5;

/** Validates rank options; throws {@link InvalidArgumentError} naming the bad one. */
export function checkRankOptions(o: EpisodeRankOptions, caller = "rerankEpisodes"): void {
  const bad = (name: string, v: unknown, rule: string) => new InvalidArgumentError(`${caller} ${name} must be ${rule}, got ${String(v)}`);
  const num = (name: keyof EpisodeRankOptions, ok: (v: number) => boolean, rule: string) => {
    const v = o[name];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || !ok(v))) throw bad(name, v, rule);
  };
  num("k", (v) => v >= 0, "a finite number >= 0");
  num("replyWeight", (v) => v >= 0, "a finite number >= 0");
  num("promptWeight", (v) => v >= 0, "a finite number >= 0");
  num("window", (v) => Number.isInteger(v) && v >= 0 && v <= MAX_WINDOW, `an integer from 0 to ${MAX_WINDOW}`);
  num("minWords", (v) => Number.isInteger(v) && v >= 0, "an integer >= 0");
  num("speakerBoost", (v) => v > 0, "a finite number > 0");
  num("timeBoost", (v) => v > 0, "a finite number > 0");
  num("sessionDecay", (v) => v > 0 && v <= 1, "a number in (0, 1]");
  num("contextWeight", (v) => v >= 0, "a finite number >= 0");
  num("bridgeWeight", (v) => v >= 0, "a finite number >= 0");
  if (o.collapseRepeats !== undefined && typeof o.collapseRepeats !== "boolean") throw bad("collapseRepeats", o.collapseRepeats, "a boolean");
}

/** Whether a question asks when something happened. */
export function isWhenQuestion(query: string): boolean {
  return WHEN_QUESTION.test(query);
}

/** Whether a turn says when something happened. */
export function mentionsTime(text: string): boolean {
  return TIME_EXPRESSION.test(text);
}

/** How many turns on each side of a hit the options read (0 when neighbours are off). */
export const neighbourWindow = (options: EpisodeRankOptions = {}): number => (usesNeighbours(options) ? (options.window ?? EPISODE_RANK_DEFAULTS.window) : 0);

/** Whether the options spread a hit's score to the turns around it. */
export const usesNeighbours = (options: EpisodeRankOptions = {}): boolean =>
  (options.replyWeight ?? EPISODE_RANK_DEFAULTS.replyWeight) > 0 ||
  (options.promptWeight ?? EPISODE_RANK_DEFAULTS.promptWeight) > 0 ||
  (options.contextWeight ?? EPISODE_RANK_DEFAULTS.contextWeight) > 0;

/**
 * Re-orders the store's hits (best first) for conversational recall. Each hit
 * at rank r scores `1 / (k + r)` (times `timeBoost` for a "when" question
 * and a turn that says when); it also gives `replyWeight` of that to the turn
 * after it and `promptWeight` to the turn before, so a turn is scored with
 * its neighbours. Turns found only as neighbours come from `neighbours`
 * (keyed by {@link episodeKey}); neighbours missing from it are skipped.
 * A turn's total is then scaled down when it has fewer than `minWords`
 * content words, and up by `speakerBoost` when the query names its speaker.
 * With `sessionDecay < 1`, each session's later picks are discounted (greedy,
 * like MMR with "same session" as the similarity). `more` are further
 * first-stage rankings of the same query (searchEpisodes passes a
 * vector-only one, weighted by its `vectorWeight`): a hit at rank r of one
 * scores `weight / (k + r)` on top and lends to its neighbours the same way.
 * With `bridgeWeight`, candidates that say a name one of the best turns said
 * earn a share of its score ({@link addBridgeCredit}); with
 * `collapseRepeats`, a text already picked is not picked again.
 * Returns at most `limit`.
 */
export function rerankEpisodes(
  query: string,
  hits: readonly Episode[],
  limit: number,
  options: EpisodeRankOptions = {},
  neighbours: ReadonlyMap<string, Episode> = new Map(),
  more: ReadonlyArray<{ hits: readonly Episode[]; weight: number }> = [],
): Episode[] {
  checkRankOptions(options);
  const o = { ...EPISODE_RANK_DEFAULTS, ...definedOnly(options) };
  const { k, replyWeight, promptWeight, window, minWords, speakerBoost, sessionDecay: decay, timeBoost: boost } = o;
  const asked = new Set(tokenize(query, { stemming: false }));
  const when = boost !== 1 && isWhenQuestion(query);
  const byKey = new Map<string, { episode: Episode; score: number; lent: number; order: number }>();
  const credit = (episode: Episode | undefined, score: number, order: number, own: boolean) => {
    if (!episode || score === 0) return;
    let c = byKey.get(episode.key);
    if (!c) byKey.set(episode.key, (c = { episode, score: 0, lent: 0, order }));
    c.order = Math.min(c.order, order);
    if (own) c.score += score;
    else c.lent += score;
  };
  const lists = [{ hits, weight: 1 }, ...more.filter((l) => l.weight > 0)];
  const inHits = new Map(lists.flatMap((l) => l.hits.map((h) => [episodeKey(h.threadId, h.turn), h] as const)));
  const at = (e: Episode, turn: number) => {
    const key = episodeKey(e.threadId, turn);
    return inHits.get(key) ?? neighbours.get(key);
  };
  let offset = 0;
  for (const list of lists) {
    list.hits.forEach((episode, i) => {
      const base = (list.weight / (k + i + 1)) * (when && mentionsTime(episode.text) ? boost : 1);
      const order = offset + i;
      credit(episode, base, order, true);
      for (let d = 1; d <= window; d++) {
        const share = 0.5 ** (d - 1) * base;
        if (replyWeight > 0) credit(at(episode, episode.turn + d), replyWeight * share, order + 0.5, false);
        if (promptWeight > 0 && episode.turn - d >= 0) credit(at(episode, episode.turn - d), promptWeight * share, order + 0.5, false);
      }
    });
    offset += list.hits.length;
  }
  const scored: ScoredEpisode[] = [...byKey.values()].map((c) => ({ episode: c.episode, score: c.score + c.lent, order: c.order, terms: tokenize(c.episode.text) }));
  const scale = scored.map((s) => {
    let x = 1;
    if (minWords > 0) {
      const n = s.terms.length;
      if (n < minWords) x *= (n + 1) / (minWords + 1);
    }
    if (speakerBoost !== 1 && asked.has(s.episode.speaker.toLowerCase())) x *= speakerBoost;
    return x;
  });
  if (o.contextWeight > 0) {
    const lex = previousTurnScores(query, scored.map((s) => (s.episode.turn > 0 ? at(s.episode, s.episode.turn - 1) : undefined)));
    const order = lex.map((x, i) => [x, i] as const).filter(([x]) => x > 0).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    order.forEach(([, i], r) => (scored[i]!.score += o.contextWeight / (k + r + 1)));
  }
  scored.forEach((s, i) => (s.score *= scale[i]!));
  if (o.bridgeWeight > 0) {
    const ignore = new Set(tokenize(query));
    for (const speaker of new Set(scored.map((s) => s.episode.speaker))) for (const t of tokenize(speaker)) ignore.add(t);
    addBridgeCredit(scored, o.bridgeWeight, scale, ignore);
  }
  return selectEpisodes(scored, limit, { sessionDecay: decay, collapseRepeats: o.collapseRepeats });
}

function definedOnly(o: EpisodeRankOptions): EpisodeRankOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as EpisodeRankOptions;
}
