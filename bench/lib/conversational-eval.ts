import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { Embeddings } from "@langchain/core/embeddings";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import type { RetrievalMode } from "../../src/store/retrieval-mode.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { searchEpisodes, type SearchEpisodesOptions } from "../../src/episodes/search.js";
import { baselineText, episodeContext, KINDS, sessionThread, turnKey, type LargeConversation, type QuestionKind } from "./conversations-large.js";

export const CUTOFFS = [5, 10, 20] as const;
export type Recall = Record<`R@${(typeof CUTOFFS)[number]}`, number> & { questions: number };
export type RankerReport = Record<QuestionKind | "all", Recall>;

/** A ranker: given a conversation and a question, the keys of the top 20 turns, best first. */
export type Ranker = (c: LargeConversation, query: string) => Promise<string[]>;

function recall(evidence: string[], ranked: string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
}

/** Evidence recall at 5, 10 and 20 per question kind (share of a question's answer turns in the top k, averaged). */
export async function evaluate(convs: LargeConversation[], rank: Ranker): Promise<RankerReport> {
  const sums = new Map<string, { n: number; r: number[] }>();
  const add = (kind: string, rs: number[]) => {
    const s = sums.get(kind) ?? { n: 0, r: [0, 0, 0] };
    s.n++;
    rs.forEach((x, i) => (s.r[i]! += x));
    sums.set(kind, s);
  };
  for (const c of convs) {
    for (const q of c.questions) {
      const ranked = await rank(c, q.q);
      const evidence = q.evidence.map(([s, t]) => turnKey(s, t));
      const rs = CUTOFFS.map((k) => recall(evidence, ranked, k));
      add(q.kind, rs);
      add("all", rs);
    }
  }
  const out = {} as RankerReport;
  for (const kind of [...KINDS, "all"] as const) {
    const s = sums.get(kind) ?? { n: 0, r: [0, 0, 0] };
    out[kind] = { "R@5": (100 * s.r[0]!) / (s.n || 1), "R@10": (100 * s.r[1]!) / (s.n || 1), "R@20": (100 * s.r[2]!) / (s.n || 1), questions: s.n };
  }
  return out;
}

/** The issue's baseline: one item per turn, `"<speaker>: <text>"`, fields ["text"], searched with the question. */
export async function baselineStore(convs: LargeConversation[], embeddings: Embeddings, retrieval: RetrievalMode): Promise<HNSWStore> {
  const store = new HNSWStore({ index: { dims: 512, embeddings, fields: ["text"] }, retrieval });
  for (const c of convs) {
    const ops = c.sessions.flatMap((s, si) => s.turns.map(([speaker, text], ti) => ({ namespace: [c.id], key: turnKey(si, ti), value: { text: baselineText(speaker, text) } })));
    await store.batch(ops);
  }
  return store;
}

/** Episodes as the package writes them: recordEpisodes, one thread per session, the session date as `now`. */
export async function recordConversations(store: BaseStore, convs: LargeConversation[]): Promise<void> {
  for (const c of convs) {
    const [a, b] = c.speakers;
    for (const [si, s] of c.sessions.entries()) {
      await recordEpisodes({
        store,
        namespace: [c.id],
        threadId: sessionThread(si),
        messages: s.turns.map(([speaker, text]) => ({ role: speaker === a ? "user" : "assistant", content: text })),
        now: `${s.date}T12:00:00Z`,
        speakers: { user: a, assistant: b },
      });
    }
  }
}

/**
 * Episodes as the previous release wrote them (for the "before" rows): the
 * same values plus an indexed `context` (date, previous turn, turn), two
 * vectors per turn, keys and threads as recordEpisodes writes them.
 */
export async function legacyEpisodeStore(convs: LargeConversation[], embeddings: Embeddings): Promise<HNSWStore> {
  const store = new HNSWStore({ index: { dims: 512, embeddings, fields: ["text"] } });
  for (const c of convs) {
    const [a, b] = c.speakers;
    for (const [si, s] of c.sessions.entries()) {
      const ops = s.turns.map(([speaker, text], ti) => {
        const prev = ti > 0 ? { speaker: s.turns[ti - 1]![0], text: s.turns[ti - 1]![1] } : undefined;
        const value = {
          text, speaker, role: speaker === a ? "user" : speaker === b ? "assistant" : "user", threadId: sessionThread(si), turn: ti,
          timestamp: `${s.date}T12:00:00.000Z`, date: s.date, said: baselineText(speaker, text), context: episodeContext({ speaker, text, date: s.date }, prev), kind: "episode",
        };
        return { namespace: [c.id], key: turnKey(si, ti), value, index: ["said", "context"] };
      });
      await store.batch(ops);
    }
  }
  return store;
}

/** The previous release's re-ranking defaults (k 10, time boost 2.5, session decay 0.9, no neighbours, one hybrid search, pool 80 at limit 20). */
export const LEGACY_RANK = { k: 10, timeBoost: 2.5, sessionDecay: 0.9, replyWeight: 0, promptWeight: 0, vectorWeight: 0, pool: 80 } as const;

/** The one-vector defaults before round 6 (bench/tune-episodes.ts): one hybrid search, pool 80 at limit 20. */
export const ROUND5_DEFAULTS = { vectorWeight: 0, pool: 80 } as const;

/** The defaults of round 6 (bench/tune-episodes.ts), before repeats were collapsed and names bridged (round 7). */
export const ROUND6_DEFAULTS = { collapseRepeats: false, bridgeWeight: 0 } as const;

export async function episodeStore(convs: LargeConversation[], embeddings: Embeddings, retrieval: RetrievalMode = "hybrid"): Promise<HNSWStore> {
  // QUERY_ADAPTER=off scores the same store without USE-lite's query adapter (index.queryAdapter), for comparison.
  const store = new HNSWStore({ index: { dims: 512, embeddings, fields: ["text"], ...(process.env.QUERY_ADAPTER === "off" ? { queryAdapter: false } : {}) }, retrieval });
  await recordConversations(store, convs);
  return store;
}

export const storeRanker = (store: BaseStore): Ranker => async (c, query) => (await store.search([c.id], { query, limit: 20 })).map((h) => h.key);

export const episodeRanker =
  (store: BaseStore, options: Omit<SearchEpisodesOptions, "query"> = {}): Ranker =>
  async (c, query) =>
    (await searchEpisodes(store, [c.id], { query, limit: 20, ...options })).map((e) => e.key);

/** A markdown table of the reports. */
export function table(reports: Record<string, RankerReport>): string {
  const first = Object.values(reports)[0];
  const kinds = [...KINDS.filter((k) => !first || first[k].questions > 0), "all"] as const;
  const head = `| ranking | ${kinds.map((k) => `${k} R@5 / R@10 / R@20`).join(" | ")} |`;
  const rule = `|---|${kinds.map(() => "---").join("|")}|`;
  const rows = Object.entries(reports).map(
    ([name, r]) => `| ${name} | ${kinds.map((k) => CUTOFFS.map((c) => r[k as QuestionKind | "all"][`R@${c}`].toFixed(1)).join(" / ")).join(" | ")} |`,
  );
  return [head, rule, ...rows].join("\n");
}
