/**
 * A view of a facts development set in which each namespace holds the facts
 * of several people: the people of each part (tune, held out), in the split's
 * order, taken `groupSize` at a time, each group one "person" holding every
 * member's facts and asked every member's questions. With the extractor's
 * wording every fact of a group starts with "User", so a question has to find
 * its answer among four or five times as many facts of the same kind, as in a
 * memory that holds hundreds of facts about one person. Ids, answers, dates
 * and replacements stay; no person moves between parts.
 */
import type { DevPerson, FactsDevSet } from "./facts-sets.js";

export function crowdedView(set: FactsDevSet, groupSize: number): FactsDevSet {
  if (!Number.isInteger(groupSize) || groupSize < 2) throw new Error(`crowdedView: groupSize must be a whole number of at least 2, got ${groupSize}`);
  const byId = new Map(set.people.map((p) => [p.id, p]));
  const groups = (ids: string[]): DevPerson[] => {
    const out: DevPerson[] = [];
    for (let i = 0; i < ids.length; i += groupSize) {
      const members = ids.slice(i, i + groupSize).map((id) => byId.get(id)!);
      out.push({
        id: members.map((m) => m.id).join("+"),
        name: members.map((m) => m.name).join(", "),
        facts: members.flatMap((m) => m.facts),
        questions: members.flatMap((m) => m.questions),
      });
    }
    return out;
  };
  const tune = groups(set.split.tune);
  const heldout = groups(set.split.heldout);
  return {
    name: `${set.name} (${groupSize} people a namespace)`,
    description: `${set.description} — each namespace holds the facts of ${groupSize} people of one part (bench/lib/crowded-view.ts)`,
    split: { method: `${set.split.method}; then ${groupSize} people of one part a namespace, in the split's order`, tune: tune.map((p) => p.id), heldout: heldout.map((p) => p.id) },
    people: [...tune, ...heldout],
  };
}
