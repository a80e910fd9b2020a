import type { DevPerson } from "../../bench/lib/facts-sets.js";

/** One person of a facts development set, for the tests of the set's wording views (bench/lib/*-wording.ts). */
export const amara: DevPerson = {
  id: "p",
  name: "Amara Okafor",
  facts: [
    { id: "f1", text: "Works as an ICU nurse", category: "work", date: "2024-01-01", supersedes: null },
    { id: "f2", text: "Husband Chidi is a civil engineer", category: "family", date: "2024-01-02", supersedes: null },
    { id: "f3", text: "Younger sister Adaeze is a pharmacist", category: "family", date: "2024-01-03", supersedes: null },
    { id: "f4", text: "Chidi and Obinna joined her in Manchester", category: "family", date: "2024-01-04", supersedes: null },
  ],
  questions: [
    { id: "q1", q: "What does she do for work?", answers: ["f1"], kind: "direct" },
    { id: "q2", q: "Who is her sister and what does she do?", answers: ["f3"], kind: "relational" },
  ],
};
