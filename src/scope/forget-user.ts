import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { CURSOR_NAMESPACE_ROOT, EPISODE_CURSOR_ROOT, HISTORY_NAMESPACE_ROOT } from "../store/hidden-namespaces.js";
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
  /** Extraction cursors deleted (items under `["memory_cursors", ...namespace]`). */
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

/** Items read per round when a store has no `deleteNamespace`. */
const PAGE = 500;

async function deleteUnder(store: BaseStore, prefix: string[]): Promise<number> {
  const own = store as BaseStore & { deleteNamespace?: (prefix: string[]) => Promise<number> };
  if (typeof own.deleteNamespace === "function") return own.deleteNamespace(prefix);
  // Any other BaseStore: page through the prefix and delete what it holds.
  let deleted = 0;
  for (;;) {
    const items = await store.search(prefix, { limit: PAGE });
    if (items.length === 0) return deleted;
    await store.batch(items.map((i) => ({ namespace: i.namespace, key: i.key, value: null })));
    deleted += items.length;
  }
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
 * after the delete. On `HNSWStore`, call `compact()` afterwards for the
 * deleted texts and vectors to leave the disk at once.
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
  const memories = await deleteUnder(real, namespace);
  const cursors = await deleteUnder(real, [CURSOR_NAMESPACE_ROOT, ...namespace]);
  let history = await deleteUnder(real, [HISTORY_NAMESPACE_ROOT, ...namespace]);
  let episodes = 0;
  let episodeCursors = 0;
  if (episodeNamespace) {
    episodes = await deleteUnder(real, episodeNamespace);
    episodeCursors = await deleteUnder(real, [EPISODE_CURSOR_ROOT, ...episodeNamespace]);
    history += await deleteUnder(real, [HISTORY_NAMESPACE_ROOT, ...episodeNamespace]);
  }
  for (const ns of procedures) {
    await deleteUnder(real, ns);
    history += await deleteUnder(real, [HISTORY_NAMESPACE_ROOT, ...ns]);
  }
  return { namespace, memories, cursors, history, ...(procedures.length > 0 ? { procedures: procedures.length } : {}), ...(episodeNamespace ? { episodeNamespace } : {}), episodes, episodeCursors };
}
