/**
 * The facts section of `npm run bench:retrieval`: the smoke set and both
 * development sets, tune and held-out parts reported apart, through a real
 * HNSWStore (see facts-eval.ts). Each development set is scored twice: as
 * written, and in the extractor's wording (bench/lib/extractor-wording.ts:
 * "User lives in Lisbon.", questions about "the user"), the wording the
 * package's extractor stores, in the first person (bench/lib/first-person-wording.ts:
 * the extractor's facts, "where do I live?"), the way the preload searches with the
 * user's own last message, and with the extractor's facts and the questions as written
 * (bench/lib/named-questions-wording.ts: "where does Amara live?"), a question that names
 * whom it is about.
 */
import { existsSync } from "node:fs";
import type { Embeddings } from "@langchain/core/embeddings";
import { FACTS_HEADER, factsRows, FactsStore, type FactsReport } from "./facts-eval.js";
import { extractorWording } from "./extractor-wording.js";
import { firstPersonWording } from "./first-person-wording.js";
import { namedQuestionsWording } from "./named-questions-wording.js";
import { loadFactsDevSet, loadSmokeSet, setCounts, type FactsDevSet, type SetPart } from "./facts-sets.js";

export const DEV_SETS = ["facts-dev-a.json", "facts-dev-b.json"];

/**
 * The smoke set, then each development set whose file exists, then (`extractor`, default on) each
 * development set in the extractor's wording, then each in the first person (the extractor's facts,
 * the person's own questions, as the preload searches with the user's last message), then each with
 * the extractor's facts and the questions as written (naming the person).
 */
export async function loadAllFactsSets(extractor = true): Promise<FactsDevSet[]> {
  const dev: FactsDevSet[] = [];
  for (const file of DEV_SETS) if (existsSync(new URL(`../data/${file}`, import.meta.url))) dev.push(await loadFactsDevSet(file));
  const views = extractor ? dev.map(extractorWording) : [];
  const firstPerson = extractor ? dev.map((set, i) => firstPersonWording(set, views[i])) : [];
  const named = extractor ? dev.map((set, i) => namedQuestionsWording(set, views[i])) : [];
  return [await loadSmokeSet(), ...dev, ...views, ...firstPerson, ...named];
}

export interface FactsBenchResult {
  set: string;
  description: string;
  split: string;
  counts: Record<string, ReturnType<typeof setCounts>>;
  parts: Record<string, FactsReport>;
}

/** Scores every set's parts (`parts`, default tune and held-out; the smoke set has one part). */
export async function runFactsBench(embeddings: Embeddings, parts: SetPart[] = ["tune", "heldout"]): Promise<FactsBenchResult[]> {
  const out: FactsBenchResult[] = [];
  for (const set of await loadAllFactsSets()) {
    const fs = await FactsStore.open(set, embeddings);
    const result: FactsBenchResult = { set: set.name, description: set.description, split: set.split.method, counts: {}, parts: {} };
    const setParts: SetPart[] = set.split.heldout.length === 0 ? ["all"] : parts;
    for (const part of setParts) {
      result.counts[part] = setCounts(set, part);
      result.parts[part] = await fs.score(part);
    }
    await fs.close();
    out.push(result);
  }
  return out;
}

export function printFactsBench(results: FactsBenchResult[]): void {
  console.log("\nFacts path through HNSWStore (store.search limit 10; preload = recallMemories limit 5):\n");
  for (const r of results) {
    const counts = Object.entries(r.counts)
      .map(([p, c]) => `${p}: ${c.people} people, ${c.facts} facts (${c.superseded} replace an older one), ${c.questions} questions (${c.unanswerable} unanswerable)`)
      .join("; ");
    console.log(`${r.set} — ${counts}`);
  }
  console.log("");
  console.log(FACTS_HEADER.join("\n"));
  for (const r of results) for (const [part, rep] of Object.entries(r.parts)) console.log(factsRows(`${r.set} ${part}`, rep).join("\n"));
}
