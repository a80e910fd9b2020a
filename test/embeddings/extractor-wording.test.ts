/**
 * The extractor-wording view of a facts development set (bench/lib/extractor-wording.ts):
 * facts as the extractor writes them, questions about "the user", the same ids,
 * answers and split.
 */
import { describe, expect, it } from "vitest";
import { extractorFact, extractorQuestion, extractorWording } from "../../bench/lib/extractor-wording.js";
import { loadFactsDevSet } from "../../bench/lib/facts-sets.js";
import { amara } from "../helpers/wording-person.js";


describe("the extractor-wording view", () => {
  /** [as written, in the extractor's wording] */
  const FACTS: Array<[string, string]> = [
    ["Works as an ICU nurse", "User works as an ICU nurse."],
    ["Husband Chidi is a civil engineer", "User's husband Chidi is a civil engineer."],
    ["Allergic to shellfish", "User is allergic to shellfish."],
    ["Amara is 34 and lives in Yaba", "User is 34 and lives in Yaba."],
    ["Goal: run a marathon", "User's goal: run a marathon."],
    // About someone else: the subject stays.
    ["Chidi and Obinna joined her in Manchester", "Chidi and Obinna joined her in Manchester."],
    ["Calls Adaeze when Amara is off.", "User calls Adaeze when the user is off."],
  ];
  const QUESTIONS: Array<[string, string]> = [
    ["Where does Amara live?", "Where does the user live?"],
    ["What's Amara's blood type?", "What's the user's blood type?"],
    ["Which seafood must never go into her meals?", "Which seafood must never go into the user's meals?"],
    ["When can I reach her?", "When can I reach the user?"],
    ["What does she do for work?", "What does the user do for work?"],
    // "she" after her sister is the sister's; "his" is the son's; "he" the husband's.
    ["Who is her sister and what does she do?", "Who is the user's sister and what does she do?"],
    ["What toy would her son like for his birthday?", "What toy would the user's son like for his birthday?"],
    ["Who's her husband and what does he do?", "Who's the user's husband and what does he do?"],
  ];

  it("gives facts 'User' as their subject, leaves facts about someone else, ends with a period", () => {
    for (const [text, expected] of FACTS) expect(extractorFact(text, amara), text).toBe(expected);
  });

  it("asks about the user: the name and the person's own pronouns, not another person's", () => {
    for (const [q, expected] of QUESTIONS) expect(extractorQuestion(q, amara), q).toBe(expected);
  });

  it("keeps every id, answer, date, replacement and the split of a development set", async () => {
    const set = await loadFactsDevSet("facts-dev-b.json");
    const view = extractorWording(set);
    expect(view.split).toEqual(set.split);
    expect(view.people.map((p) => p.id)).toEqual(set.people.map((p) => p.id));
    const strip = (s: typeof set) => s.people.map((p) => [p.facts.map(({ text: _, ...f }) => f), p.questions.map(({ q: _, ...q }) => q)]);
    expect(strip(view)).toEqual(strip(set));
    const facts = view.people.flatMap((p) => p.facts.map((f) => f.text));
    expect(facts.filter((t) => t.startsWith("User")).length / facts.length).toBeGreaterThan(0.85);
    expect(facts.every((t) => /[.!?]$/.test(t))).toBe(true);
    for (const [i, p] of set.people.entries()) {
      const first = p.name.split(" ")[0]!;
      for (const q of view.people[i]!.questions) expect(q.q, p.name).not.toMatch(new RegExp(`(?<![\\p{L}])${first}(?![\\p{L}])`, "iu"));
    }
    // Deterministic.
    expect(extractorWording(set)).toEqual(view);
  });
});
