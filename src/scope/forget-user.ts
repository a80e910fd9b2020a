import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { erasePrefixes } from "./erase-prefixes.js";
import { memoryNamespace, type NamespaceValues } from "./memory-namespace.js";
import type { NamespaceTemplate } from "./namespace-template.js";
import { waitForPendingWrites } from "./pending-writes.js";
import { underlyingStore } from "./resolve-store.js";
import { personProcedureNamespaces } from "./procedure-namespace.js";

/** What {@link forgetUser} deleted. */
export interface ForgetUserResult {
  /** The user's namespace, as stored. */
  namespace: string[];
  /** Memories deleted (items under the namespace). */
  memories: number;
  /** Extraction and episode cursors deleted (under `["memory_cursors", ...namespace]` and `["episode_cursors", ...namespace]`). */
  cursors: number;
  /** Kept versions deleted (under `["memory_history", ...]` of the memory and episode namespaces). */
  history: number;
  /** The user's episode namespace, when `options.episodes` was given. */
  episodeNamespace?: string[];
  /** Episodes (conversation turns) deleted; 0 without `options.episodes`. */
  episodes: number;
  /** Episode cursors deleted (under `["episode_cursors", ...episodeNamespace]`); 0 without `options.episodes`. */
  episodeCursors: number;
  /** Per-user procedure and feedback namespaces deleted (see `ForgetUserOptions.userId`); absent when none. */
  procedures?: number;
}

/** Options for {@link forgetUser}. */
export interface ForgetUserOptions {
  /**
   * The episode namespace template (e.g. `["episodes", "{user_id}"]`, filled
   * from the same values): the user's episodes, episode cursors and their
   * kept versions are deleted too.
   * @default undefined (episodes are left alone)
   */
  episodes?: NamespaceTemplate;
  /**
   * The user's id for procedural memory: their per-user learned instructions
   * and feedback (`["procedures", agentId, userId]` for every agent) are
   * deleted too, with their kept versions.
   * @default values.user_id, when it is set
   */
  userId?: string;
}

/**
 * "Forget this person": deletes everything stored under the user's namespace
 * AND the extractor's cursors and kept versions (`memory_history`) for it,
 * and with `options.episodes` the user's episodes, episode cursors and their
 * kept versions, and the user's learned instructions and feedback for every
 * agent (procedural memory; user id from `options.userId` or `values.user_id`),
 * on any `BaseStore`. (`erasePerson` from the privacy
 * helpers does the same from resolved prefixes and also unlinks audit
 * entries.) Background
 * extractions for that namespace are run to completion first, so none lands
 * after the delete. On `HNSWStore` one compaction at the end purges the
 * deleted texts and vectors from every file.
 *
 * @example
 * ```ts
 * await forgetUser(store, ["users", "{user_id}"], { user_id: "alice@example.com" }, { episodes: ["episodes", "{user_id}"] });
 * ```
 */
export async function forgetUser(
  store: BaseStore,
  template: NamespaceTemplate,
  values: NamespaceValues,
  options: ForgetUserOptions = {},
): Promise<ForgetUserResult> {
  const namespace = memoryNamespace(template, values);
  // Resolve everything before deleting anything, so a missing value deletes nothing.
  const episodeNamespace = options.episodes ? memoryNamespace(options.episodes, values) : undefined;
  const real = underlyingStore(store);
  const userId = options.userId ?? (values.user_id === undefined ? undefined : String(values.user_id));
  const procedures = userId === undefined ? [] : await personProcedureNamespaces(real, userId);
  await waitForPendingWrites(real, namespace);
  if (episodeNamespace) await waitForPendingWrites(real, episodeNamespace);
  // One erase for everything (one compaction at the end): memories, episodes, learned instructions.
  const erased = await erasePrefixes(real, [namespace, ...(episodeNamespace ? [episodeNamespace] : []), ...procedures]);
  const mine = erased[0]!;
  const theirEpisodes = episodeNamespace ? erased[1] : undefined;
  const memories = mine.items;
  const cursors = mine.cursors;
  let history = mine.history;
  let episodes = 0;
  let episodeCursors = 0;
  if (theirEpisodes) {
    episodes = theirEpisodes.items;
    episodeCursors = theirEpisodes.cursors;
    history += theirEpisodes.history;
  }
  for (const r of erased.slice(episodeNamespace ? 2 : 1)) history += r.history;
  return { namespace, memories, cursors, history, ...(procedures.length > 0 ? { procedures: procedures.length } : {}), ...(episodeNamespace ? { episodeNamespace } : {}), episodes, episodeCursors };
}
