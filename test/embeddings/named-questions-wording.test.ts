/**
 * The named-questions view of a facts development set (bench/lib/named-questions-wording.ts):
 * facts as the extractor writes them, questions as written (naming the person), the same
 * ids, answers and split.
 */
import { describe, expect, it } from "vitest";
import { extractorWording } from "../../bench/lib/extractor-wording.js";
import { namedQuestionsWording } from "../../bench/lib/named-questions-wording.js";
import { loadFactsDevSet } from "../../bench/lib/facts-sets.js";

describe("the named-questions view", () => {
  it("pairs the extractor's facts with the questions as written, keeping every id, answer, date, replacement and the split", async () => {
    const set = await loadFactsDevSet("facts-dev-a.json");
    const extractor = extractorWording(set);
    const view = namedQuestionsWording(set, extractor);
    expect(view.split).toEqual(set.split);
    expect(view.people.map((p) => p.id)).toEqual(set.people.map((p) => p.id));
    expect(view.people.map((p) => p.facts)).toEqual(extractor.people.map((p) => p.facts));
    expect(view.people.map((p) => p.questions)).toEqual(set.people.map((p) => p.questions));
    // The facts say "User", and some questions still name the person they are about.
    const facts = view.people.flatMap((p) => p.facts.map((f) => f.text));
    expect(facts.filter((t) => t.startsWith("User")).length / facts.length).toBeGreaterThan(0.8);
    const naming = view.people.filter((p) => p.questions.some((q) => q.q.includes(p.name.split(" ")[0]!)));
    expect(naming.length).toBeGreaterThan(view.people.length / 2);
    expect(view.name).not.toEqual(extractor.name);
    expect(namedQuestionsWording(set)).toEqual(view);
  });
});
