import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../src/errors.js";
import { hybridRank, keywordSignals } from "../../src/embeddings/fusion.js";

const hits = (...ids: string[]) => ids.map((id, i) => ({ id, score: 1 - i / 10 }));

describe("keywordSignals", () => {
  it("counts names, numbers and quoted phrases but not sentence-initial or common words", () => {
    expect(keywordSignals("Which antibiotics should I avoid?")).toBe(0);
    expect(keywordSignals("When did I fly to Lisbon?")).toBe(1);
    expect(keywordSignals('What did Maya say about "the red door" in 2023?')).toBe(3);
  });
});

describe("hybridRank", () => {
  it("with the defaults, a keyword-only hit does not displace the vector's first hit for a plain query", () => {
    const out = hybridRank({ query: "how does she relax", vectorHits: hits("a", "b", "c"), keywordHits: hits("c", "d") });
    expect(out.map((h) => h.id)).toEqual(["a", "c", "b", "d"]);
  });

  it("keeps the vector order when keywords found nothing", () => {
    const out = hybridRank({ query: "which antibiotics should I avoid", vectorHits: hits("a", "b", "c"), keywordHits: [] });
    expect(out.map((h) => h.id)).toEqual(["a", "b", "c"]);
  });

  it("returns the union, promoting hits found by both lists", () => {
    const out = hybridRank(
      { query: "tea", vectorHits: hits("a", "b", "c"), keywordHits: hits("c", "d") },
      { k: 60, keywordWeight: 1 },
    );
    expect(out.map((h) => h.id)).toEqual(["c", "a", "b", "d"]);
    expect(out[0]!.score).toBeGreaterThan(out[1]!.score);
  });

  it("leans on the vector ranking for a plain query and on keywords for a query with names and dates", () => {
    const vectorHits = hits("v1", "v2", "v3");
    const keywordHits = hits("k1", "k2");
    const plain = hybridRank({ query: "what do I like to drink", vectorHits, keywordHits });
    expect(plain[0]!.id).toBe("v1");
    const named = hybridRank({ query: "what did I do in Lisbon in 2023", vectorHits, keywordHits });
    expect(named[0]!.id).toBe("k1");
  });

  it("is tunable: a zero keyword weight reproduces the vector ranking", () => {
    const out = hybridRank(
      { query: "Lisbon 2023", vectorHits: hits("a", "b"), keywordHits: hits("b", "z") },
      { keywordWeight: 0, signalBoost: 0 },
    );
    expect(out.map((h) => h.id)).toEqual(["a", "b", "z"]);
  });

  it("ignores duplicate ids within one list and rejects bad options", () => {
    const out = hybridRank({ query: "x", vectorHits: hits("a", "a", "b"), keywordHits: [] });
    expect(out.map((h) => h.id)).toEqual(["a", "b"]);
    expect(() => hybridRank({ query: "x", vectorHits: [], keywordHits: [] }, { k: -1 })).toThrow(InvalidArgumentError);
    expect(() => hybridRank({ query: "x", vectorHits: undefined as never, keywordHits: [] })).toThrow(/arrays/);
  });
});
