/**
 * The crowded view of a facts development set (bench/lib/crowded-view.ts): several people's
 * facts in one namespace, every fact, question and answer kept, no person moved between parts.
 */
import { describe, expect, it } from "vitest";
import { crowdedView } from "../../bench/lib/crowded-view.js";
import { loadFactsDevSet, peopleOf } from "../../bench/lib/facts-sets.js";

describe("the crowded view", () => {
  it("puts each part's people into namespaces of the group size, keeping every fact, question and the parts apart", async () => {
    const set = await loadFactsDevSet("facts-dev-a.json");
    const view = crowdedView(set, 5);
    for (const part of ["tune", "heldout"] as const) {
      const people = peopleOf(set, part);
      const groups = peopleOf(view, part);
      expect(groups).toHaveLength(Math.ceil(people.length / 5));
      expect(groups.flatMap((g) => g.id.split("+"))).toEqual(people.map((p) => p.id));
      expect(groups.flatMap((g) => g.facts)).toEqual(people.flatMap((p) => p.facts));
      expect(groups.flatMap((g) => g.questions)).toEqual(people.flatMap((p) => p.questions));
      for (const g of groups) {
        // Every answer and replacement names a fact of its own namespace.
        const facts = new Set(g.facts.map((f) => f.id));
        for (const q of g.questions) for (const a of q.answers) expect(facts.has(a)).toBe(true);
        for (const f of g.facts) if (f.supersedes) expect(facts.has(f.supersedes)).toBe(true);
      }
    }
    expect(view.people.length).toBe(view.split.tune.length + view.split.heldout.length);
    expect(() => crowdedView(set, 1)).toThrow(/groupSize/);
    expect(() => crowdedView(set, Number.NaN)).toThrow(/groupSize/);
  });
});
