/**
 * A view of a facts development set with the extractor's facts ("User lives
 * in Lisbon.", bench/lib/extractor-wording.ts) and the questions as written,
 * naming the person ("Where does Amara live?"): memories an extractor wrote,
 * searched by a question that names whom it is about, as a benchmark of
 * conversations asks about its speakers by name. Same ids, answers, dates,
 * replacements and split.
 */
import { extractorWording } from "./extractor-wording.js";
import type { FactsDevSet } from "./facts-sets.js";

export function namedQuestionsWording(set: FactsDevSet, extractorView: FactsDevSet = extractorWording(set)): FactsDevSet {
  return {
    ...extractorView,
    name: `${set.name} (extractor facts, named questions)`,
    description: `${set.description} — facts as the extractor writes them, questions as written, naming the person (bench/lib/named-questions-wording.ts)`,
    people: extractorView.people.map((person, i) => ({ ...person, questions: set.people[i]!.questions })),
  };
}
