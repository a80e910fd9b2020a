import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { checkTemplate } from "../scope/check-template.js";
import type { NamespaceTemplate } from "../scope/namespace-template.js";
import { EPISODES_SECTION_HEADER, formatEpisode } from "./format.js";
import { EPISODE_NAMESPACE, type Episode } from "./episode.js";
import type { RecordEpisodesOptions } from "./record.js";
import { searchEpisodes } from "./search.js";
import { createSearchConversationsTool } from "./tool.js";
import type { StructuredToolInterface } from "@langchain/core/tools";

/** Episodic memory in `callModel` and `withMemory`: past conversation turns. */
export interface EpisodeMemoryOptions {
  /**
   * The episode namespace template. With the door's `layout`, leave it out:
   * the layout's `episodes` namespace is used (a different one is refused
   * with `InvalidOptionError`).
   * @default the layout's episodes namespace, else ["episodes", "{user_id}"]
   */
  namespace?: NamespaceTemplate;
  /**
   * In preload modes, how many relevant past turns join the memory context
   * (marked with their date and thread, within the same `maxTokens`). `0`
   * preloads none.
   * @default 3
   */
  preloadLimit?: number;
  /**
   * In postload modes, give the model the `search_conversations` tool.
   * @default true
   */
  tool?: boolean;
  /**
   * `withMemory` only: record each thread's new turns in its `write_memory` node.
   * @default true
   */
  record?: boolean;
  /** Speaker names for recorded user and assistant turns. @default { user: "user", assistant: "assistant" } */
  speakers?: RecordEpisodesOptions["speakers"];
}

/** The episode namespace template of the options. */
export const episodeTemplate = (o: EpisodeMemoryOptions): NamespaceTemplate => o.namespace ?? EPISODE_NAMESPACE;

/** Validates episode options; throws {@link InvalidArgumentError} naming the bad one. */
export function checkEpisodeOptions(o: EpisodeMemoryOptions | undefined): void {
  if (o === undefined) return;
  if (!o || typeof o !== "object") throw new InvalidArgumentError(`episodes must be an options object, got ${JSON.stringify(o)}`);
  checkTemplate(episodeTemplate(o));
  if (o.preloadLimit !== undefined && (!Number.isInteger(o.preloadLimit) || o.preloadLimit < 0)) {
    throw new InvalidArgumentError(`episodes.preloadLimit must be a non-negative integer, got ${String(o.preloadLimit)}`);
  }
}

/** The episode tools for postload modes: `search_conversations`, unless turned off. */
export function episodeTools(o: EpisodeMemoryOptions | undefined, store: BaseStore | undefined): StructuredToolInterface[] {
  if (!o || o.tool === false) return [];
  return [createSearchConversationsTool({ namespace: episodeTemplate(o), store })];
}

/**
 * The past-conversation section of the memory context for `query`, kept
 * within `budget` estimated tokens (four characters each), or undefined when
 * nothing fits or nothing is found.
 */
export async function preloadEpisodeSection(
  store: BaseStore,
  namespace: string[],
  query: string,
  options: { limit?: number; budget?: number },
): Promise<string | undefined> {
  return formatEpisodeSection(await preloadEpisodeHits(store, namespace, query, options), options.budget);
}

/** The turns a preload shows for `query` (none for an empty query or `limit` 0). */
export async function preloadEpisodeHits(store: BaseStore, namespace: string[], query: string, options: { limit?: number }): Promise<Episode[]> {
  const limit = options.limit ?? 3;
  if (limit === 0 || !query.trim()) return [];
  return searchEpisodes(store, namespace, { query, limit });
}

/** The past-conversation section for `hits`, within `budget` estimated tokens, or undefined when none fits. */
export function formatEpisodeSection(hits: readonly Episode[], budget?: number): string | undefined {
  const tokens = (s: string) => Math.ceil(s.length / 4) + 1;
  let left = (budget ?? Infinity) - tokens(EPISODES_SECTION_HEADER);
  const lines: string[] = [];
  for (const hit of hits) {
    const line = formatEpisode(hit);
    if (tokens(line) > left) continue;
    left -= tokens(line);
    lines.push(line);
  }
  return lines.length === 0 ? undefined : [EPISODES_SECTION_HEADER, ...lines].join("\n");
}
