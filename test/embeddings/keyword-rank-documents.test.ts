/**
 * KeywordIndex.document and rankDocuments: documents kept and ranked again rank exactly as an
 * index of their texts searches them (same ids, same scores to the last bit), without building it.
 */
import { describe, expect, it } from "vitest";
import { KeywordIndex } from "../../src/embeddings/keyword-index.js";

const WORDS = ["tea", "coffee", "peanut", "allergy", "dog", "dogs", "walked", "walking", "sister", "Lisbon", "moved", "Berlin", "the", "a", "user", "likes", "oat", "milk"];

/** Seeded texts of 0-3 fields each, 1-14 words a field (some fields empty). */
function texts(seed: number, n: number): string[][] {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), s);
  return Array.from({ length: n }, () => Array.from({ length: next() % 4 }, () => Array.from({ length: next() % 15 }, () => WORDS[next() % WORDS.length]).join(" ")));
}

describe("KeywordIndex.rankDocuments", () => {
  it("ranks kept documents exactly as an index of their texts searches them", () => {
    for (const seed of [1, 2, 3]) {
      const all = texts(seed, 120);
      const index = new KeywordIndex();
      const kept: [string, ReturnType<KeywordIndex["document"]>][] = [];
      all.forEach((t, i) => {
        index.add(`m${i}`, t);
        kept.push([`m${i}`, index.document(t)]);
      });
      for (const query of ["dog walking", "peanut allergy tea", "the user", "Berlin moved sister oat", "nothing here", ""]) {
        for (const limit of [1, 5, 200]) {
          // Another index with the same options ranks the kept documents: the same hits and scores.
          expect(new KeywordIndex().rankDocuments(query, kept, limit)).toEqual(index.search(query, { limit }));
        }
      }
    }
  });

  it("counts a document's terms as add does, and refuses bad arguments", () => {
    const index = new KeywordIndex();
    expect(index.document(["Dogs walked", "dog"])).toEqual({ terms: new Map([["dog", 2], ["walk", 1]]), length: 3 });
    expect(index.rankDocuments("dog", [], 5)).toEqual([]);
    expect(() => index.rankDocuments("dog", [], -1)).toThrow(/limit/);
    expect(() => index.rankDocuments(7 as unknown as string, [], 1)).toThrow(/query/);
    expect(() => index.document([3 as unknown as string])).toThrow(/strings/);
  });
});
