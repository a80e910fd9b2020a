import { readFile } from "node:fs/promises";
import { tokenize } from "../../src/embeddings/tokenize.js";

/** One searchable memory in the evaluation. */
export interface EvalDoc {
  id: string;
  namespace: string;
  text: string;
}

/** One question: the namespace it is asked in and the id of the doc that answers it (null: none does). */
export interface EvalQuestion {
  namespace: string;
  query: string;
  answer: string | null;
}

export interface EvalSet {
  name: string;
  docs: EvalDoc[];
  questions: EvalQuestion[];
}

interface FactsFile {
  people: Array<{ id: string; facts: string[]; questions: Array<{ q: string; answer: number | null }> }>;
}

interface ConversationsFile {
  conversations: Array<{
    id: string;
    sessions: Array<{ date: string; turns: Array<[string, string]> }>;
    questions: Array<{ q: string; evidence: [number, number] | null }>;
  }>;
}

const dataDir = new URL("../data/", import.meta.url);

/** The facts set: one namespace per person. */
export async function loadFacts(): Promise<EvalSet> {
  const file = JSON.parse(await readFile(new URL("facts.json", dataDir), "utf8")) as FactsFile;
  const docs: EvalDoc[] = [];
  const questions: EvalQuestion[] = [];
  for (const p of file.people) {
    p.facts.forEach((text, i) => docs.push({ id: `${p.id}/f${i}`, namespace: p.id, text }));
    for (const q of p.questions) {
      questions.push({ namespace: p.id, query: q.q, answer: q.answer === null ? null : `${p.id}/f${q.answer}` });
    }
  }
  return { name: "facts", docs, questions };
}

/** The conversations set: one namespace per conversation, one doc per turn, session date in the text. */
export async function loadConversations(): Promise<EvalSet> {
  const file = JSON.parse(await readFile(new URL("conversations.json", dataDir), "utf8")) as ConversationsFile;
  const docs: EvalDoc[] = [];
  const questions: EvalQuestion[] = [];
  for (const c of file.conversations) {
    c.sessions.forEach((s, si) =>
      s.turns.forEach(([speaker, text], ti) =>
        docs.push({ id: `${c.id}/s${si}t${ti}`, namespace: c.id, text: `[${s.date}] ${speaker}: ${text}` }),
      ),
    );
    for (const q of c.questions) {
      questions.push({ namespace: c.id, query: q.q, answer: q.evidence && `${c.id}/s${q.evidence[0]}t${q.evidence[1]}` });
    }
  }
  return { name: "conversations", docs, questions };
}

/** Whether the question shares a content word (after stop words and stemming) with its answer. */
export function sharesContentWord(set: EvalSet, q: EvalQuestion): boolean {
  if (q.answer === null) return false;
  const doc = set.docs.find((d) => d.id === q.answer)!;
  const words = new Set(tokenize(doc.text.replace(/^\[[^\]]*\] \w+: /, "")));
  return tokenize(q.query).some((w) => words.has(w));
}
