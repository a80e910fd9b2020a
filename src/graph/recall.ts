import { checkBoolean, checkNumber } from "../option-checks.js";
import type { BaseStore, SearchItem } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { estimateTokens, formatMemoryLine, MEMORY_CONTEXT_HEADER, MEMORY_CONTEXT_PREAMBLE } from "./format-memories.js";

/** How {@link recallMemories} picks memories. */
export interface RecallOptions {
  /**
   * The search query; when empty, only the newest memories are taken.
   * @default undefined (newest memories only)
   */
  query?: string;
  /**
   * Most memories to return.
   * @default 5
   */
  limit?: number;
  /**
   * Relevance floor: a memory found by the query is kept only when its score
   * is at least this. With HNSWStore the floor means the same in every
   * retrieval mode that has vectors: scores never go up down the list and
   * never exceed an item's cosine similarity (hybrid mode reports the fused
   * relevance, the cosine capped by the score above), so no memory less
   * similar than the floor is kept. Items the store returns without a score
   * (no vectors) are kept.
   * @default 0
   */
  scoreThreshold?: number;
  /**
   * Fill the places the query left empty with the newest memories.
   * @default true
   */
  fillWithRecent?: boolean;
  /**
   * How many items are read to find the newest ones. Namespaces larger than
   * this are sampled, not fully sorted.
   * @default 1000
   */
  recentScanLimit?: number;
  /**
   * Budget, in estimated tokens (about four characters each), for the whole
   * memory-context message. Memories that do not fit are dropped, most
   * relevant kept first. No budget when unset.
   * @default undefined (no budget)
   */
  maxTokens?: number;
  /** Whether lines will show keys (affects the token estimate). @default false */
  withKeys?: boolean;
}

/** Validates recall options; throws {@link InvalidArgumentError} naming the bad one. */
export function validateRecallOptions(options: RecallOptions): void {
  // limit 0 recalls nothing (documented); null, NaN, fractions and negatives are refused.
  checkNumber(options.limit, "limit", { min: 0, integer: true });
  // A scan of 0 items or a budget of 0 tokens would silently drop every memory.
  checkNumber(options.recentScanLimit, "recentScanLimit", { min: 1, integer: true });
  checkNumber(options.maxTokens, "maxTokens", { min: 1, integer: true });
  // Scores are cosine similarities (or fused relevance) in [-1, 1]: a floor above 1 keeps nothing.
  checkNumber(options.scoreThreshold, "scoreThreshold", { min: -1, max: 1 });
  checkBoolean(options.fillWithRecent, "fillWithRecent");
  checkBoolean(options.withKeys, "withKeys");
}

const time = (d: Date | string | undefined): number => (d === undefined ? 0 : new Date(d).getTime());

/**
 * Picks the memories to show the model: up to `limit` found by `query` with a
 * score of at least `scoreThreshold`, then the newest others, all within the
 * token budget. Relevant memories come first, then recent ones (newest first).
 */
export async function recallMemories(
  store: BaseStore,
  namespace: string[],
  options: RecallOptions = {},
): Promise<SearchItem[]> {
  validateRecallOptions(options);
  const limit = options.limit ?? 5;
  const threshold = options.scoreThreshold ?? 0;
  if (limit === 0) return [];

  const picked: SearchItem[] = [];
  const seen = new Set<string>();
  const query = options.query?.trim();
  if (query) {
    const hits = await store.search(namespace, { query, limit });
    for (const hit of hits) {
      if (hit.score !== undefined && hit.score !== null && hit.score < threshold) continue;
      picked.push(hit);
      seen.add(JSON.stringify([hit.namespace, hit.key]));
    }
  }
  if ((options.fillWithRecent ?? true) && picked.length < limit) {
    const all = await store.search(namespace, { limit: options.recentScanLimit ?? 1000 });
    all.sort((a, b) => time(b.updatedAt) - time(a.updatedAt));
    for (const item of all) {
      if (picked.length >= limit) break;
      const id = JSON.stringify([item.namespace, item.key]);
      if (seen.has(id)) continue;
      seen.add(id);
      picked.push(item);
    }
  }
  if (options.maxTokens === undefined) return picked;

  let used = estimateTokens(`${MEMORY_CONTEXT_HEADER}\n${MEMORY_CONTEXT_PREAMBLE}`);
  const kept: SearchItem[] = [];
  for (const item of picked) {
    const cost = estimateTokens(formatMemoryLine(item, options.withKeys ?? false)) + 1;
    if (used + cost > options.maxTokens) continue;
    used += cost;
    kept.push(item);
  }
  return kept;
}
