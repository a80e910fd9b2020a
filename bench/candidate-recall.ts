/**
 * First-stage candidate recall of episodic search: `npx tsx bench/candidate-recall.ts`
 * (SPLIT=heldout for the held-out splits). For each question, the share of its
 * evidence turns that are in a candidate set at all — the ceiling any
 * re-ranking of that set can reach — per set and question kind, with the
 * set's mean size. Candidate sets: the store's hybrid pool (80, what a
 * `limit: 20` search re-ranks), with the ±2 turns around it (what
 * rerankEpisodes scores), the vector-only and BM25-only top 80, and unions of
 * the pool with a BM25 list, a speaker-filtered search and the turns of the
 * best-scoring sessions. Needs the vectors cached by bench/warm-embeddings.ts.
 */
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { episodeKey } from "../src/episodes/episode.js";
import type { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { DiskCachedEmbeddings } from "./lib/disk-cache.js";
import { KINDS, loadConversationSet, turnKey, type LargeConversation } from "./lib/conversations-large.js";
import { episodeStore } from "./lib/conversational-eval.js";

const split = process.env.SPLIT === "heldout" ? "heldout" : "tune";
const cache = await new DiskCachedEmbeddings(new UniversalSentenceEncoderEmbeddings(), new URL("./results/use-lite-vectors.json", import.meta.url)).load();

type Sets = Record<string, Set<string>>;
const keys = async (store: HNSWStore, c: LargeConversation, query: string, limit: number, filter?: Record<string, unknown>) =>
  (await store.search([c.id], { query, limit, filter })).map((h) => h.key);

function withNeighbours(c: LargeConversation, ks: Iterable<string>, window = 2): Set<string> {
  const out = new Set<string>();
  for (const k of ks) {
    const [thread, turn] = k.split("#") as [string, string];
    const si = Number(thread.slice(1));
    const n = c.sessions[si]!.turns.length;
    for (let d = -window; d <= window; d++) {
      const t = Number(turn) + d;
      if (t >= 0 && t < n) out.add(episodeKey(thread, t));
    }
  }
  return out;
}

function sessionTurns(c: LargeConversation, pool: string[], top: number, k = 10): string[] {
  const score = new Map<string, number>();
  pool.forEach((key, r) => {
    const thread = key.split("#")[0]!;
    score.set(thread, (score.get(thread) ?? 0) + 1 / (k + r + 1));
  });
  const best = [...score].sort((a, b) => b[1] - a[1]).slice(0, top).map(([t]) => Number(t.slice(1)));
  return best.flatMap((si) => c.sessions[si]!.turns.map((_, ti) => turnKey(si, ti)));
}

for (const name of ["dev1", "dev2"] as const) {
  const convs = await loadConversationSet(name, split);
  const [hybrid, vector, keyword] = await Promise.all((["hybrid", "vector", "keyword"] as const).map((m) => episodeStore(convs, cache, m)));
  const sums = new Map<string, Map<string, { hit: number; n: number; size: number; q: number }>>();
  for (const c of convs) {
    for (const q of c.questions) {
      const pool = await keys(hybrid, c, q.q, 80);
      const kw40 = await keys(keyword, c, q.q, 40);
      const kw80 = await keys(keyword, c, q.q, 80);
      const named = c.speakers.find((s) => new RegExp(`\\b${s}\\b`, "i").test(q.q));
      const bySpeaker = named ? await keys(hybrid, c, q.q, 40, { speaker: named }) : [];
      const perSession: string[] = [];
      const topSessions = [...new Set(pool.map((k) => k.split("#")[0]!))].slice(0, 5);
      for (const t of topSessions) perSession.push(...(await keys(hybrid, c, q.q, 8, { threadId: t })));
      const sets: Sets = {
        "pool 80": new Set(pool),
        "pool 80 ±2": withNeighbours(c, pool),
        "pool 160 ±2": withNeighbours(c, await keys(hybrid, c, q.q, 160)),
        "now: pool 160 ∪ vector 160, ±2": withNeighbours(c, [...(await keys(hybrid, c, q.q, 160)), ...(await keys(vector, c, q.q, 160))]),
        "pool 80 ∪ vector 80, ±2": withNeighbours(c, [...pool, ...(await keys(vector, c, q.q, 80))]),
        "vector 80": new Set(await keys(vector, c, q.q, 80)),
        "bm25 80": new Set(kw80),
        "pool ∪ bm25 40, ±2": withNeighbours(c, [...pool, ...kw40]),
        "pool ∪ bm25 80, ±2": withNeighbours(c, [...pool, ...kw80]),
        "pool ∪ speaker 40, ±2": withNeighbours(c, [...pool, ...bySpeaker]),
        "pool ±2 ∪ top-3 sessions": new Set([...withNeighbours(c, pool), ...sessionTurns(c, pool, 3)]),
        "pool ±2 ∪ top-5 sessions": new Set([...withNeighbours(c, pool), ...sessionTurns(c, pool, 5)]),
        "pool ∪ 8 per top-5 session, ±2": withNeighbours(c, [...pool, ...perSession]),
      };
      const evidence = q.evidence.map(([s, t]) => turnKey(s, t));
      for (const kind of [q.kind, "all", ...(named ? ["names a speaker"] : [])]) {
        const byKind = sums.get(kind) ?? new Map();
        sums.set(kind, byKind);
        for (const [label, set] of Object.entries(sets)) {
          const s = byKind.get(label) ?? { hit: 0, n: 0, size: 0, q: 0 };
          s.hit += evidence.filter((e) => set.has(e)).length;
          s.n += evidence.length;
          s.size += set.size;
          s.q++;
          byKind.set(label, s);
        }
      }
    }
  }
  const kinds = [...KINDS, "names a speaker", "all"].filter((k) => sums.has(k));
  console.log(`\n${name} ${split}: evidence turns in the candidate set, % (found/total), mean set size`);
  console.log(`| candidates | ${kinds.join(" | ")} | size |\n|---|${kinds.map(() => "---").join("|")}|---|`);
  for (const label of sums.get("all")!.keys()) {
    const cells = kinds.map((k) => {
      const s = sums.get(k)!.get(label)!;
      return `${((100 * s.hit) / s.n).toFixed(1)} (${s.hit}/${s.n})`;
    });
    const all = sums.get("all")!.get(label)!;
    console.log(`| ${label} | ${cells.join(" | ")} | ${(all.size / all.q).toFixed(0)} |`);
  }
  for (const s of [hybrid, vector, keyword]) await s.close();
}
