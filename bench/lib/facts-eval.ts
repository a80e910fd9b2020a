/**
 * Scores the facts path as an agent meets it: every person's facts written
 * to a real HNSWStore (in memory, USE-lite through the shared cache, one
 * namespace per person, `fields: ["text"]`, the store's default retrieval),
 * as the extractor writes them (`{ text, source: "extractor" }`, oldest
 * first, a changed fact carrying `supersedes: <key of the fact it replaced>`),
 * then each question asked through `store.search` (what the memory tools and
 * the inspector show) and `recallMemories` (withMemory's preload, 5 facts).
 *
 * Evidence recall@k: the share of a question's answer facts in the first k,
 * averaged over answerable questions. MRR: 1 / rank of the first answer fact.
 * Abstention: how well the top score tells answerable questions from those
 * nothing answers (AUC; 0.5 is chance).
 */
import type { Embeddings } from "@langchain/core/embeddings";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import type { RetrievalMode } from "../../src/store/retrieval-mode.js";
import { recallMemories } from "../../src/graph/recall.js";
import { peopleOf, type DevPerson, type FactsDevSet, type SetPart } from "./facts-sets.js";

export interface FactsMetrics {
  questions: number;
  answerable: number;
  r5: number;
  r10: number;
  mrr: number;
  /** Evidence recall of the 5 facts the preload shows. */
  preload5: number;
  /** AUC of the top score: answerable above unanswerable (undefined without both kinds). */
  abstainAuc?: number;
  meanTopAnswerable: number;
  meanTopUnanswerable?: number;
}

export interface FactsReport {
  all: FactsMetrics;
  byKind: Record<string, FactsMetrics>;
}

interface Outcome {
  kind: string;
  answerable: boolean;
  r5: number;
  r10: number;
  rr: number;
  preload5: number;
  top: number;
}

/** A set loaded into one store, ready to be asked many times (ranking changes between runs need no rebuild). */
export class FactsStore {
  private constructor(
    readonly set: FactsDevSet,
    readonly store: HNSWStore,
  ) {}

  /**
   * `dims` is the embedder's output size (USE-lite's by default); `queryAdapter: false` ranks with
   * USE-lite's own query vectors, as every facts search did before the facts adapter.
   */
  static async open(set: FactsDevSet, embeddings: Embeddings, options: { retrieval?: RetrievalMode; dims?: number; queryAdapter?: false } = {}): Promise<FactsStore> {
    const { retrieval, dims = 512, queryAdapter } = options;
    // A clock that moves 1 ms at every reading: each fact gets its own updatedAt, in the order written, so
    // the recent facts that fill the preload are the same in every run (with Date.now, facts written in the
    // same millisecond tied, and the preload's R@5 moved by up to 0.3 between identical runs).
    let now = Date.UTC(2026, 0, 1);
    const clock = () => (now += 1);
    const store = new HNSWStore({ index: { dims, embeddings, fields: ["text"], ...(queryAdapter === false ? { queryAdapter } : {}) }, clock, ...(retrieval ? { retrieval } : {}) });
    for (const person of set.people) await writePerson(store, person);
    return new FactsStore(set, store);
  }

  async score(part: SetPart): Promise<FactsReport> {
    const outcomes: Outcome[] = [];
    for (const person of peopleOf(this.set, part)) {
      const ns = ["memories", person.id];
      for (const q of person.questions) {
        const hits = await this.store.search(ns, { query: q.q, limit: 10 });
        const preload = await recallMemories(this.store, ns, { query: q.q, limit: 5 });
        const keys = hits.map((h) => h.key);
        const answers = new Set(q.answers);
        const within = (list: string[], k: number) => list.slice(0, k).filter((x) => answers.has(x)).length / (answers.size || 1);
        const first = keys.findIndex((x) => answers.has(x));
        outcomes.push({
          kind: q.answers.length === 0 ? "unanswerable" : String(q.kind),
          answerable: answers.size > 0,
          r5: within(keys, 5),
          r10: within(keys, 10),
          rr: first < 0 ? 0 : 1 / (first + 1),
          preload5: within(preload.map((p) => p.key), 5),
          top: hits[0]?.score ?? -1,
        });
      }
    }
    const byKind: Record<string, FactsMetrics> = {};
    for (const kind of [...new Set(outcomes.map((o) => o.kind))].sort()) byKind[kind] = summarise(outcomes.filter((o) => o.kind === kind));
    return { all: summarise(outcomes), byKind };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** One person's facts, oldest first, one batch per fact (so `updatedAt` follows the facts' dates). */
async function writePerson(store: HNSWStore, person: DevPerson): Promise<void> {
  const ordered = person.facts.map((f, i) => ({ f, i })).sort((a, b) => a.f.date.localeCompare(b.f.date) || a.i - b.i);
  for (const { f } of ordered) {
    const value: Record<string, unknown> = { text: f.text, source: "extractor" };
    if (f.supersedes) value.supersedes = f.supersedes;
    await store.put(["memories", person.id], f.id, value);
  }
}

function summarise(os: Outcome[]): FactsMetrics {
  const a = os.filter((o) => o.answerable);
  const u = os.filter((o) => !o.answerable);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  let auc: number | undefined;
  if (a.length && u.length) {
    let wins = 0;
    for (const x of a) for (const y of u) wins += x.top > y.top ? 1 : x.top === y.top ? 0.5 : 0;
    auc = wins / (a.length * u.length);
  }
  return {
    questions: os.length,
    answerable: a.length,
    r5: mean(a.map((o) => o.r5)),
    r10: mean(a.map((o) => o.r10)),
    mrr: mean(a.map((o) => o.rr)),
    preload5: mean(a.map((o) => o.preload5)),
    abstainAuc: auc,
    meanTopAnswerable: mean(a.map((o) => o.top)),
    meanTopUnanswerable: u.length ? mean(u.map((o) => o.top)) : undefined,
  };
}

const pct = (x: number) => (100 * x).toFixed(1);

/** Markdown rows: one for the part, then one per question kind. */
export function factsRows(label: string, r: FactsReport): string[] {
  const row = (name: string, m: FactsMetrics) =>
    `| ${label} | ${name} | ${m.answerable}/${m.questions} | ${pct(m.r5)} | ${pct(m.r10)} | ${m.mrr.toFixed(3)} | ${pct(m.preload5)} | ${m.abstainAuc === undefined ? "" : m.abstainAuc.toFixed(2)} |`;
  return [row("all", r.all), ...Object.entries(r.byKind).map(([k, m]) => row(k, m))];
}

export const FACTS_HEADER = ["| set / part | kind | answerable/q | R@5 | R@10 | MRR | preload R@5 | abstain AUC |", "|---|---|---|---|---|---|---|---|"];
