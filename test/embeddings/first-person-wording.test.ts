/**
 * The first-person view of a facts development set (bench/lib/first-person-wording.ts):
 * facts as the extractor writes them, questions asked by the person themselves,
 * the same ids, answers and split.
 */
import { describe, expect, it } from "vitest";
import { extractorWording } from "../../bench/lib/extractor-wording.js";
import { firstPersonQuestion, firstPersonWording } from "../../bench/lib/first-person-wording.js";
import { loadFactsDevSet } from "../../bench/lib/facts-sets.js";
import { amara } from "../helpers/wording-person.js";


describe("the first-person view", () => {
  /** [as written, in the first person] */
  const QUESTIONS: Array<[string, string]> = [
    ["Where does Amara live?", "Where do I live?"],
    ["Where does she live now?", "Where do I live now?"],
    ["Is she allergic to anything?", "Am I allergic to anything?"],
    ["Has she been to Lagos?", "Have I been to Lagos?"],
    ["What's Amara's blood type?", "What's my blood type?"],
    ["What's she allergic to?", "What am I allergic to?"],
    ["Which city is she living in now?", "Which city am I living in now?"],
    ["Is there a pill she takes first thing?", "Is there a pill I take first thing?"],
    ["Plan a city break she'd love", "Plan a city break I would love"],
    ["What did she do before she moved?", "What did I do before I moved?"],
    ["Who is her sister and what does she do?", "Who is my sister and what does she do?"],
    ["What toy would her son like for his birthday?", "What toy would my son like for his birthday?"],
    ["Who's her husband and what does he do?", "Who's my husband and what does he do?"],
    ["Who goes to concerts with her?", "Who goes to concerts with me?"],
    ["Which fruit should I not bring to her office?", "Which fruit should I not bring to my office?"],
    // The asker of the written question is now the person: "I … for her" → "I … for myself".
    ["What could I cook for Amara after she gets home from work?", "What could I cook for myself after I get home from work?"],
    ["Can I get her a milkshake?", "Can I get myself a milkshake?"],
    ["Does she look after herself?", "Do I look after myself?"],
    ["Is this bag hers?", "Is this bag mine?"],
  ];

  it("asks in the first person: the name and the person's own pronouns, with the verb agreeing; another person's pronouns stay", () => {
    for (const [q, expected] of QUESTIONS) expect(firstPersonQuestion(q, amara), q).toBe(expected);
  });

  it("keeps the extractor's facts and every id, answer, date, replacement and the split of a development set", async () => {
    const set = await loadFactsDevSet("facts-dev-b.json");
    const extractor = extractorWording(set);
    const view = firstPersonWording(set, extractor);
    expect(view.split).toEqual(set.split);
    expect(view.people.map((p) => p.facts)).toEqual(extractor.people.map((p) => p.facts));
    const strip = (s: typeof set) => s.people.map((p) => p.questions.map(({ q: _, ...q }) => q));
    expect(strip(view)).toEqual(strip(set));
    const questions = view.people.flatMap((p) => p.questions.map((q) => q.q));
    expect(questions.some((q) => /\bthe user\b|\u0001/i.test(q))).toBe(false);
    expect(questions.filter((q) => /\b(I|me|my|mine|myself)\b/.test(q)).length / questions.length).toBeGreaterThan(0.6);
    for (const [i, p] of set.people.entries()) {
      const first = p.name.split(" ")[0]!;
      for (const q of view.people[i]!.questions) expect(q.q, p.name).not.toMatch(new RegExp(`(?<![\\p{L}])${first}(?![\\p{L}])`, "iu"));
    }
    // Deterministic, and the default extractor view is the same.
    expect(firstPersonWording(set)).toEqual(view);
  });
});
