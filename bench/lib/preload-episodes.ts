import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { EPISODES_SECTION_HEADER } from "../../src/episodes/format.js";
import { EPISODES_CONTENT, FACTS_CONTENT } from "../../src/graph/format-memories.js";
import { preloadMemoryBlock, preloadScope, type PreloadSettings } from "../../src/graph/recall-context.js";
import { loadConversationSet, type LargeConversation } from "./conversations-large.js";
import { recordTurns } from "./episode-ingest.js";
import { latency } from "./vectors.js";

/** The embedder view the preload bench hands in: precomputed query vectors, and a count of live query embeddings. */
export interface QueryEmbeddings {
  readonly precomputed: Map<string, number[]>;
  readonly liveQueries: number;
  embedDocuments(texts: string[]): Promise<number[][]>;
}

/** What {@link benchPreloadWithEpisodes} measured. */
export interface PreloadWithEpisodes {
  facts: number;
  factsInNamespace: number;
  episodeTurns: number;
  recordSeconds: number;
  recordTurnsPerSecond: number;
  turns: number;
  /** The whole preload (facts + episodes in one block), the query embedded live: one embedding per turn. */
  withEmbeddingMs: ReturnType<typeof latency>;
  /** The same path, the query vector computed beforehand. */
  searchOnlyMs: ReturnType<typeof latency>;
}

/**
 * Records `turns` conversation turns (both development sets, cycled, one
 * recordEpisodes call per session, as withMemory's write_memory does) into
 * `user`'s episode namespace, then times the preload callModel and the
 * createAgent middleware run with episodes on (preloadScope +
 * preloadMemoryBlock: facts and past turns searched in one batch, one query
 * embedding between them) for distinct questions from the sets, alternating
 * a live-embedded question with a precomputed one, so load hits both alike.
 * Throws if a turn's block lacks either section or embeds other than once.
 */
export async function benchPreloadWithEpisodes(
  store: BaseStore,
  embeddings: QueryEmbeddings,
  options: { user: string; turns: number; timedTurns: number; warmup: number; facts: number; factsInNamespace: number },
): Promise<PreloadWithEpisodes> {
  const { user, turns: target, timedTurns, warmup } = options;
  const convs: LargeConversation[] = [...(await loadConversationSet("dev1", "all")), ...(await loadConversationSet("dev2", "all"))];
  const namespace = ["episodes", user];
  const t0 = performance.now();
  const recorded = await recordTurns(store, namespace, convs, target, (n) => {
    if (n % 1000 < 40) process.stdout.write(`\rrecorded ${n} episode turns`);
  });
  const recordSeconds = (performance.now() - t0) / 1000;
  console.log(` in ${recordSeconds.toFixed(1)} s`);

  // Distinct questions: even ones embedded live, odd ones precomputed.
  const questions = [...new Set(convs.flatMap((c) => c.questions.map((q) => q.q)))];
  const pairs = warmup + timedTurns;
  if (questions.length < 2 * pairs) throw new Error(`need ${2 * pairs} distinct questions, the sets have ${questions.length}`);
  const live = Array.from({ length: pairs }, (_, i) => questions[2 * i]!);
  const pre = Array.from({ length: pairs }, (_, i) => questions[2 * i + 1]!);
  const vectors = await embeddings.embedDocuments(pre);
  pre.forEach((q, i) => embeddings.precomputed.set(q, vectors[i]!));

  const settings: PreloadSettings = { namespace: ["users", "{user_id}"], store, limit: 5, episodes: { namespace: ["episodes", "{user_id}"] } };
  const config = { configurable: { user_id: user } };
  const turn = async (query: string, embeds: number) => {
    const before = embeddings.liveQueries;
    const t = performance.now();
    const scope = preloadScope(settings, config);
    const block = await preloadMemoryBlock(settings, { config, query, withKeys: false, scope });
    const ms = performance.now() - t;
    if (!block?.includes(EPISODES_SECTION_HEADER) || !block.includes(`${FACTS_CONTENT} and ${EPISODES_CONTENT}`)) throw new Error(`"${query}": the block lacks facts or past turns`);
    if (embeddings.liveQueries - before !== embeds) throw new Error(`"${query}": ${embeddings.liveQueries - before} query embeddings, expected ${embeds}`);
    return ms;
  };
  const withEmbedding: number[] = [];
  const searchOnly: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const a = await turn(live[i]!, 1);
    const b = await turn(pre[i]!, 0);
    if (i >= warmup) {
      withEmbedding.push(a);
      searchOnly.push(b);
    }
  }
  return {
    facts: options.facts,
    factsInNamespace: options.factsInNamespace,
    episodeTurns: recorded,
    recordSeconds: Math.round(recordSeconds * 10) / 10,
    recordTurnsPerSecond: Math.round(recorded / recordSeconds),
    turns: timedTurns,
    withEmbeddingMs: latency(withEmbedding),
    searchOnlyMs: latency(searchOnly),
  };
}
