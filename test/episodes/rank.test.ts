/** rerankEpisodes: pure ranking rules (no store, no embedder). */
import { describe, expect, it } from "vitest";
import { isWhenQuestion, mentionsTime, rerankEpisodes } from "../../src/episodes/rank.js";
import type { Episode } from "../../src/episodes/episode.js";
import { previousTurnScores } from "../../src/episodes/lexical.js";
import { InvalidArgumentError } from "../../src/errors.js";

const ep = (key: string, text: string, threadId = "t1", date = "2024-01-01"): Episode => ({ key, text, speaker: "user", threadId, turn: 0, date, timestamp: "" });

describe("rerankEpisodes", () => {
  it("recognises when-questions and turns that place an event in time", () => {
    expect(isWhenQuestion("When did Maya adopt the parrot?")).toBe(true);
    expect(isWhenQuestion("What day was the wedding?")).toBe(true);
    expect(isWhenQuestion("Where did Maya go?")).toBe(false);
    expect(mentionsTime("We adopted it last weekend")).toBe(true);
    expect(mentionsTime("I ran it two weeks ago")).toBe(true);
    expect(mentionsTime("That sounds lovely")).toBe(false);
  });

  it("moves a turn that says when above a closer match for a when-question only", () => {
    const hits = [ep("a", "The parrot is so loud"), ep("b", "We adopted a parrot last Friday", "t2")];
    expect(rerankEpisodes("When did Maya adopt the parrot?", hits, 2, { timeBoost: 2.5, minWords: 0, speakerBoost: 1 }).map((e) => e.key)).toEqual(["b", "a"]);
    expect(rerankEpisodes("What is the parrot called?", hits, 2, { timeBoost: 2.5, minWords: 0, speakerBoost: 1 }).map((e) => e.key)).toEqual(["a", "b"]);
  });

  it("spreads results over sessions, and keeps store order when turned off", () => {
    const hits = [ep("a1", "x one"), ep("a2", "x two"), ep("a3", "x three"), ep("b1", "x four", "t2")];
    expect(rerankEpisodes("q", hits, 4, { sessionDecay: 0.5, minWords: 0 }).map((e) => e.key)).toEqual(["a1", "b1", "a2", "a3"]);
    expect(rerankEpisodes("q", hits, 4, { sessionDecay: 1, minWords: 0 }).map((e) => e.key)).toEqual(["a1", "a2", "a3", "b1"]);
    expect(rerankEpisodes("q", hits, 2)).toHaveLength(2);
  });
});

describe("rerankEpisodes neighbours, short turns and speakers", () => {
  const turn = (threadId: string, n: number, text: string, speaker = "Ana"): Episode => ({ key: `${threadId}#${String(n).padStart(6, "0")}`, text, speaker, threadId, turn: n, date: "2024-01-01", timestamp: "" });
  const off = { minWords: 0, speakerBoost: 1, sessionDecay: 1, timeBoost: 1 };

  it("lends a hit's score to the reply after it, read from the neighbours map", () => {
    const topic = turn("t1", 4, "Are you still playing Civilization in the evenings?");
    const reply = turn("t1", 5, "Been at it for a month now, every evening.");
    const other = turn("t2", 0, "Civilization exhibits at the museum were closed");
    const hits = [topic, other, turn("t3", 0, "something else entirely here"), turn("t4", 0, "more filler words here")];
    const withReply = rerankEpisodes("how long playing Civilization", hits, 3, { ...off, k: 1, replyWeight: 0.8, window: 1 }, new Map([[reply.key, reply]]));
    expect(withReply.map((e) => e.key)).toEqual([topic.key, reply.key, other.key]);
    expect(rerankEpisodes("q", hits, 3, { ...off, replyWeight: 0, promptWeight: 0 }).map((e) => e.key)).not.toContain(reply.key);
    // A neighbour absent from the map is skipped, not invented.
    expect(rerankEpisodes("q", hits, 10, { ...off, replyWeight: 0.8 }).map((e) => e.key)).not.toContain(reply.key);
  });

  it("demotes turns with no content words and favours the speaker the question names", () => {
    const hits = [turn("t1", 0, "When are they not?"), turn("t2", 0, "We adopted a whippet called Pepper", "Priya"), turn("t3", 0, "Dan adopted nothing today at all", "Dan")];
    const base = { ...off, replyWeight: 0, promptWeight: 0 };
    expect(rerankEpisodes("what dog did Priya adopt", hits, 3, base)[0]!.key).toBe(hits[0]!.key);
    expect(rerankEpisodes("what dog did Priya adopt", hits, 3, { ...base, minWords: 3 })[0]!.key).toBe(hits[1]!.key);
    expect(rerankEpisodes("what did Dan say", [hits[1]!, hits[2]!], 2, { ...base, speakerBoost: 2 })[0]!.key).toBe(hits[2]!.key);
  });
});

describe("rerankEpisodes contextWeight (keywords of the turn before)", () => {
  const turn = (threadId: string, n: number, text: string): Episode => ({ key: `${threadId}#${String(n).padStart(6, "0")}`, text, speaker: "Ana", threadId, turn: n, date: "2024-01-01", timestamp: "" });
  const off = { minWords: 0, speakerBoost: 1, timeBoost: 1, replyWeight: 0, promptWeight: 0 };

  it("scores a turn by the words of the turn before it only, with idf over the candidates", () => {
    const prompt = turn("t1", 3, "Where did the whale watching trip take you?");
    const scores = previousTurnScores("Where did Ana go whale watching?", [prompt, undefined, turn("t2", 0, "Lovely weather today")]);
    expect(scores[0]).toBeGreaterThan(0);
    expect(scores[1]).toBe(0);
    expect(scores[2]).toBe(0);
    // the reply's own text names nothing the question asks: only its previous turn does
    expect(previousTurnScores("whale watching", [undefined, prompt])[0]).toBe(0);
  });

  it("moves a reply whose previous turn names the topic above a hit the store ranked higher, only when on", () => {
    const prompt = turn("t1", 3, "Where did the whale watching trip take you?");
    const reply = turn("t1", 4, "Vancouver, I only got home on Sunday.");
    const hits = [turn("t2", 0, "Holidays by the sea are the best"), turn("t3", 0, "Boats make me seasick"), reply];
    const neighbours = new Map([[prompt.key, prompt]]);
    const q = "Where did Ana go whale watching?";
    expect(rerankEpisodes(q, hits, 3, { ...off, contextWeight: 0 }, neighbours)[0]!.key).toBe(hits[0]!.key);
    expect(rerankEpisodes(q, hits, 3, { ...off, contextWeight: 1 }, neighbours)[0]!.key).toBe(reply.key);
    // off by default
    expect(rerankEpisodes(q, hits, 3, off, neighbours)[0]!.key).toBe(hits[0]!.key);
  });

  it("rejects a bad contextWeight with a named error", () => {
    expect(() => rerankEpisodes("q", [], 1, { contextWeight: -1 })).toThrow(/contextWeight must be a finite number >= 0/);
    expect(() => rerankEpisodes("q", [], 1, { contextWeight: Number.NaN })).toThrow(InvalidArgumentError);
  });
});

describe("rerankEpisodes with further first-stage rankings (`more`)", () => {
  const turn = (threadId: string, n: number, text: string): Episode => ({ key: `${threadId}#${String(n).padStart(6, "0")}`, text, speaker: "Ana", threadId, turn: n, date: "2024-01-01", timestamp: "" });
  const off = { minWords: 0, speakerBoost: 1, timeBoost: 1, promptWeight: 0, k: 1 };

  it("scores each list's hit at rank r as weight / (k + r), sums across lists, and lends to neighbours", () => {
    const a = turn("t1", 0, "first");
    const b = turn("t2", 0, "second");
    const c = turn("t3", 0, "third");
    const replyToC = turn("t3", 1, "the reply");
    // main list a, b; vector list c, b: b = 1/3 + 1/3 beats a = 1/2; c = 1/2 ties a (a came first).
    const out = rerankEpisodes("q", [a, b], 4, { ...off, replyWeight: 0 }, new Map(), [{ hits: [c, b], weight: 1 }]);
    expect(out.map((e) => e.key)).toEqual([b.key, a.key, c.key]);
    // weight 0 ignores the list entirely
    expect(rerankEpisodes("q", [a, b], 4, { ...off, replyWeight: 0 }, new Map(), [{ hits: [c, b], weight: 0 }]).map((e) => e.key)).toEqual([a.key, b.key]);
    // a hit of the extra list lends to the turn after it
    const lent = rerankEpisodes("q", [a], 4, { ...off, replyWeight: 0.5, window: 1 }, new Map([[replyToC.key, replyToC]]), [{ hits: [c], weight: 1 }]);
    expect(lent.map((e) => e.key)).toContain(replyToC.key);
  });
});
