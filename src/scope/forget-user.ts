import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { erasePrefixes } from "./erase-prefixes.js";
import { memoryNamespace, type NamespaceValues } from "./memory-namespace.js";
import type { NamespaceTemplate } from "./namespace-template.js";
import { waitForPendingWrites } from "./pending-writes.js";
import { underlyingStore } from "./resolve-store.js";
import { personProcedureNamespaces } from "./procedure-namespace.js";
import { forgetPerson, type KindErasure } from "./forget-person.js";
import { checkLayout, EPISODES_TEMPLATE, type MemoryLayout } from "./memory-layout.js";

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
  /** The user's episode namespace, when `options.episodes` was given or episodes were erased. */
  episodeNamespace?: string[];
  /** Episodes (conversation turns) deleted; 0 without `options.episodes`. */
  episodes: number;
  /** Episode cursors deleted (under `["episode_cursors", ...episodeNamespace]`); 0 without `options.episodes`. */
  episodeCursors: number;
  /** Per-user procedure and feedback namespaces deleted (see `ForgetUserOptions.userId`); absent when none. */
  procedures?: number;
  /** Per kind, when `options.layout` was given (see `forgetPerson`). */
  kinds?: Record<string, KindErasure>;
}

/** Options for {@link forgetUser}. */
export interface ForgetUserOptions {
  /**
   * The episode namespace template (e.g. `["episodes", "{user_id}"]`, filled
   * from the same values): the user's episodes, episode cursors and their
   * kept versions are deleted too.
   * @default ["episodes", "{user_id}"] when the values fill it (else episodes are left alone)
   */
  episodes?: NamespaceTemplate;
  /**
   * The user's id for procedural memory: their per-user learned instructions
   * and feedback (`["procedures", agentId, userId]` for every agent) are
   * deleted too, with their kept versions.
   * @default values.user_id, when it is set
   */
  userId?: string;
  /**
   * Where the user's memory lives: every kind of it is erased (`template`
   * then names the facts kind's namespace), and the result's `kinds` says
   * what was erased of each.
   * @default undefined (facts at `template`, episodes, learned instructions)
   */
  layout?: MemoryLayout;
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
  if (options.layout !== undefined) return forgetWithLayout(store, namespace, values, options);
  // Resolve everything before deleting anything, so a missing value deletes nothing.
  const episodeNamespace = options.episodes ? memoryNamespace(options.episodes, values) : defaultEpisodes(values);
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
  const showEpisodes = episodeNamespace && (options.episodes || episodes + episodeCursors > 0);
  return { namespace, memories, cursors, history, ...(procedures.length > 0 ? { procedures: procedures.length } : {}), ...(showEpisodes ? { episodeNamespace } : {}), episodes, episodeCursors };
}

/** The default episode namespace when the values fill it. */
function defaultEpisodes(values: NamespaceValues): string[] | undefined {
  const v = values.user_id;
  return v === undefined || v === null || v === "" ? undefined : memoryNamespace(EPISODES_TEMPLATE, values);
}

/** forgetUser over a layout: the facts kind at the resolved template, every other kind as declared. */
async function forgetWithLayout(store: BaseStore, namespace: string[], values: NamespaceValues, options: ForgetUserOptions): Promise<ForgetUserResult> {
  const layout = checkLayout(options.layout);
  const person = { ...values, ...(options.userId !== undefined ? { [layout.personKey]: options.userId } : {}) };
  const r = await forgetPerson(store, { layout, values: person, extra: [namespace] });
  const facts = r.kinds.facts ?? r.kinds.other;
  const eps = r.kinds.episodes;
  const procedures = r.kinds.procedures?.namespaces.length ?? 0;
  let history = 0;
  for (const k of Object.values(r.kinds)) history += k.versions;
  return {
    namespace,
    memories: facts?.items ?? 0,
    cursors: facts?.cursors ?? 0,
    history,
    ...(procedures > 0 ? { procedures } : {}),
    ...(eps && eps.namespaces.length > 0 ? { episodeNamespace: eps.namespaces[0] } : {}),
    episodes: eps?.items ?? 0,
    episodeCursors: eps?.cursors ?? 0,
    kinds: r.kinds,
  };
}
