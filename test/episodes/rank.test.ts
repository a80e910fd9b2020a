/** rerankEpisodes: pure ranking rules (no store, no embedder). */
import { describe, expect, it } from "vitest";
import { isWhenQuestion, mentionsTime, rerankEpisodes } from "../../src/episodes/rank.js";
import type { Episode } from "../../src/episodes/episode.js";

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
    expect(rerankEpisodes("When did Maya adopt the parrot?", hits, 2).map((e) => e.key)).toEqual(["b", "a"]);
    expect(rerankEpisodes("What is the parrot called?", hits, 2).map((e) => e.key)).toEqual(["a", "b"]);
  });

  it("spreads results over sessions, and keeps store order when turned off", () => {
    const hits = [ep("a1", "x"), ep("a2", "x"), ep("a3", "x"), ep("b1", "x", "t2")];
    expect(rerankEpisodes("q", hits, 4, { sessionDecay: 0.5 }).map((e) => e.key)).toEqual(["a1", "b1", "a2", "a3"]);
    expect(rerankEpisodes("q", hits, 4, { sessionDecay: 1 }).map((e) => e.key)).toEqual(["a1", "a2", "a3", "b1"]);
    expect(rerankEpisodes("q", hits, 2)).toHaveLength(2);
  });
});
