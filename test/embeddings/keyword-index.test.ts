import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../src/errors.js";
import { KeywordIndex } from "../../src/embeddings/keyword-index.js";
import { stem, tokenize } from "../../src/embeddings/tokenize.js";

describe("tokenize", () => {
  it("drops stop words and question words, lower-cases and stems", () => {
    expect(tokenize("When did Alice go hiking in the Alps?")).toEqual(["alic", "hik", "alp"]);
  });

  it("brings inflections together without merging different words", () => {
    expect(new Set(["hiking", "hikes", "hiked", "hike"].map(stem)).size).toBe(1);
    expect(new Set(["running", "runs", "run"].map(stem)).size).toBe(1);
    expect(new Set(["studies", "studied", "studying", "study"].map(stem)).size).toBe(1);
    expect(stem("teacher")).not.toBe(stem("teach"));
    expect(stem("class")).toBe("class");
  });

  it("keeps numbers and non-English words, and can skip stemming", () => {
    expect(tokenize("Flight LH 1234 on 2024-05-08")).toEqual(["flight", "lh", "1234", "2024", "05", "08"]);
    expect(tokenize("Привет мир")).toEqual(["привет", "мир"]);
    expect(tokenize("hiking trips", { stemming: false })).toEqual(["hiking", "trips"]);
  });
});

describe("KeywordIndex", () => {
  it("ranks by BM25: rare terms count more than common ones", () => {
    const index = new KeywordIndex();
    index.add("a", ["my dog likes the park"]);
    index.add("b", ["my dog Biscuit is a beagle"]);
    index.add("c", ["my cat likes fish"]);
    index.add("d", ["my dog sleeps a lot"]);
    const hits = index.search("Biscuit the dog", { limit: 10 });
    expect(hits[0]!.id).toBe("b");
    expect(hits.map((h) => h.id).sort()).toEqual(["a", "b", "d"]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it("matches inflected forms through the stemmer, and not without it", () => {
    const stemmed = new KeywordIndex();
    const plain = new KeywordIndex({ stemming: false });
    for (const index of [stemmed, plain]) {
      index.add("x", ["Went hiking in the Dolomites"]);
      index.add("y", ["Bought new shoes"]);
    }
    expect(stemmed.search("hikes", { limit: 5 }).map((h) => h.id)).toEqual(["x"]);
    expect(plain.search("hikes", { limit: 5 })).toEqual([]);
  });

  it("normalises by length: with b=1 a short match beats a long one, with b=0 they tie", () => {
    const long = "penicillin " + "and some other unrelated words about the weekend ".repeat(6);
    const full = new KeywordIndex({ b: 1 });
    const none = new KeywordIndex({ b: 0 });
    for (const index of [full, none]) {
      index.add("long", [long]);
      index.add("short", ["penicillin allergy"]);
      index.add("other", ["likes tea"]);
    }
    const f = full.search("penicillin", { limit: 5 });
    expect(f[0]!.id).toBe("short");
    expect(f[0]!.score).toBeGreaterThan(f[1]!.score * 1.5);
    const n = none.search("penicillin", { limit: 5 });
    expect(n[0]!.score).toBeCloseTo(n[1]!.score, 10);
  });

  it("replaces on re-add, removes, and reports size and has()", () => {
    const index = new KeywordIndex();
    index.add("m", ["likes tea"]);
    index.add("m", ["likes coffee"]);
    expect(index.size).toBe(1);
    expect(index.search("tea", { limit: 5 })).toEqual([]);
    expect(index.search("coffee", { limit: 5 }).map((h) => h.id)).toEqual(["m"]);
    index.remove("m");
    index.remove("missing");
    expect(index.size).toBe(0);
    expect(index.has("m")).toBe(false);
    expect(index.search("coffee", { limit: 5 })).toEqual([]);
  });

  it("restricts hits to candidates given as a set or a predicate, and honours limit", () => {
    const index = new KeywordIndex();
    for (let i = 0; i < 50; i++) index.add(`u${i % 2}/m${i}`, [`note number ${i} about tea`]);
    const set = new Set(["u0/m4", "u1/m5"]);
    expect(index.search("tea", { limit: 10, candidates: set }).map((h) => h.id).sort()).toEqual(["u0/m4", "u1/m5"]);
    const pred = index.search("tea", { limit: 100, candidates: (id) => id.startsWith("u1/") });
    expect(pred).toHaveLength(25);
    expect(pred.every((h) => h.id.startsWith("u1/"))).toBe(true);
    const top = index.search("tea 7", { limit: 3 });
    expect(top).toHaveLength(3);
    expect(top[0]!.id).toBe("u1/m7");
  });

  it("returns the same top hits through the heap path as a full sort", () => {
    const index = new KeywordIndex();
    for (let i = 0; i < 500; i++) index.add(`d${i}`, [`tea ${"word ".repeat(i % 37)} ${i % 5 === 0 ? "tea" : ""}`]);
    const all = index.search("tea", { limit: 500 });
    const top = index.search("tea", { limit: 7 });
    expect(top).toEqual(all.slice(0, 7));
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.score).toBeGreaterThanOrEqual(all[i]!.score);
  });

  it("rejects bad input with a named error and leaves the index unchanged", () => {
    const index = new KeywordIndex();
    index.add("a", ["tea"]);
    expect(() => new KeywordIndex({ b: 2 })).toThrow(InvalidArgumentError);
    expect(() => index.add("a", "tea" as unknown as string[])).toThrow(/array of strings/);
    expect(() => index.search("tea", { limit: -1 })).toThrow(InvalidArgumentError);
    expect(index.search("tea", { limit: 1 }).map((h) => h.id)).toEqual(["a"]);
  });
});
