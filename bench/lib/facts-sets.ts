/**
 * The facts development sets (bench/data/facts-dev-*.json, format below) and
 * the older three-person bench/data/facts.json as a smoke set.
 *
 * A set is many people, each with the facts an extractor would have written
 * about them (with the day each was learned and, for a changed fact, the id
 * of the fact it replaces) and questions whose answers are ids of those
 * facts (none for a question nothing answers). The split into tune and
 * held-out people is part of the file and was fixed before any tuning.
 */
import { readFile } from "node:fs/promises";

export type QuestionKind = "direct" | "indirect" | "negative" | "temporal" | "relational" | "multi" | "unanswerable";

export interface DevFact {
  id: string;
  text: string;
  category: string;
  /** ISO date the fact was learned. */
  date: string;
  /** Id of the older fact of the same person this one replaces. */
  supersedes: string | null;
}

export interface DevQuestion {
  id: string;
  q: string;
  /** Ids of the facts that answer it; empty when nothing does. */
  answers: string[];
  kind: QuestionKind | string;
}

export interface DevPerson {
  id: string;
  name: string;
  facts: DevFact[];
  questions: DevQuestion[];
}

export interface FactsDevSet {
  name: string;
  description: string;
  split: { method: string; tune: string[]; heldout: string[] };
  people: DevPerson[];
}

/** The people of one part of a set: `"tune"`, `"heldout"` or `"all"`. */
export type SetPart = "tune" | "heldout" | "all";

export function peopleOf(set: FactsDevSet, part: SetPart): DevPerson[] {
  if (part === "all") return set.people;
  const ids = new Set(set.split[part]);
  return set.people.filter((p) => ids.has(p.id));
}

const dataDir = new URL("../data/", import.meta.url);

/** Reads and checks a set: unique ids, answers and supersedes naming facts of the same person, a split covering every person once. */
export async function loadFactsDevSet(file: string): Promise<FactsDevSet> {
  const set = JSON.parse(await readFile(new URL(file, dataDir), "utf8")) as FactsDevSet;
  const problems: string[] = [];
  const seen = new Set<string>();
  const inSplit = [...set.split.tune, ...set.split.heldout];
  if (new Set(inSplit).size !== inSplit.length) problems.push("a person is in both parts of the split");
  for (const p of set.people) {
    if (!inSplit.includes(p.id)) problems.push(`${p.id} is in neither part of the split`);
    const facts = new Set(p.facts.map((f) => f.id));
    for (const x of [p.id, ...p.facts.map((f) => f.id), ...p.questions.map((q) => q.id)]) {
      if (seen.has(x)) problems.push(`duplicate id ${x}`);
      seen.add(x);
    }
    for (const f of p.facts) {
      if (f.supersedes !== null && !facts.has(f.supersedes)) problems.push(`${f.id} supersedes unknown ${f.supersedes}`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(f.date)) problems.push(`${f.id} has date ${f.date}`);
    }
    for (const q of p.questions) for (const a of q.answers) if (!facts.has(a)) problems.push(`${q.id} answer ${a} is not a fact of ${p.id}`);
  }
  if (problems.length) throw new Error(`${file}: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? ` (+${problems.length - 5} more)` : ""}`);
  return set;
}

interface LegacyFacts {
  people: Array<{ id: string; facts: string[]; questions: Array<{ q: string; answer: number | null }> }>;
}

/** bench/data/facts.json in the development sets' shape (no dates there: one a day in list order; no kinds: "direct"/"unanswerable"). */
export async function loadSmokeSet(): Promise<FactsDevSet> {
  const file = JSON.parse(await readFile(new URL("facts.json", dataDir), "utf8")) as LegacyFacts;
  const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);
  const people: DevPerson[] = file.people.map((p) => ({
    id: p.id,
    name: p.id,
    facts: p.facts.map((text, i) => ({ id: `${p.id}-f${i}`, text, category: "other", date: day(i), supersedes: null })),
    questions: p.questions.map((q, i) => ({
      id: `${p.id}-q${i}`,
      q: q.q,
      answers: q.answer === null ? [] : [`${p.id}-f${q.answer}`],
      kind: q.answer === null ? "unanswerable" : "direct",
    })),
  }));
  return { name: "facts (smoke)", description: "bench/data/facts.json", split: { method: "none: all people", tune: people.map((p) => p.id), heldout: [] }, people };
}

/** Counts for the report header. */
export function setCounts(set: FactsDevSet, part: SetPart) {
  const people = peopleOf(set, part);
  const questions = people.flatMap((p) => p.questions);
  return {
    people: people.length,
    facts: people.reduce((n, p) => n + p.facts.length, 0),
    superseded: people.reduce((n, p) => n + p.facts.filter((f) => f.supersedes !== null).length, 0),
    questions: questions.length,
    unanswerable: questions.filter((q) => q.answers.length === 0).length,
  };
}
