import type { MatchCondition } from "@langchain/langgraph-checkpoint";

/**
 * The root label of the namespaces where the extractor keeps its per-thread
 * cursors: memories in `["users", "42"]` have theirs in
 * `["memory_cursors", "users", "42"]`, outside the user's prefix so recall
 * never sees them.
 */
export const CURSOR_NAMESPACE_ROOT = "memory_cursors";

/**
 * The root label of the namespaces where replaced and deleted memory
 * versions are kept (`["memory_history", ...namespace]`, see `listHistory`).
 */
export const HISTORY_NAMESPACE_ROOT = "memory_history";

/**
 * The root label of the namespaces where episode recording keeps its
 * per-thread cursors (`["episode_cursors", ...episodeNamespace]`).
 */
export const EPISODE_CURSOR_ROOT = "episode_cursors";

/** Roots of the package's bookkeeping namespaces, left out of `listNamespaces()` unless asked for. */
export const HIDDEN_NAMESPACE_ROOTS: readonly string[] = [CURSOR_NAMESPACE_ROOT, HISTORY_NAMESPACE_ROOT, EPISODE_CURSOR_ROOT];

/**
 * Whether `listNamespaces` should leave `namespace` out: it is bookkeeping
 * (see {@link HIDDEN_NAMESPACE_ROOTS}) and no prefix condition names its root
 * explicitly. `listNamespaces({ prefix: ["memory_cursors"] })` (or `"memory_history"`,
 * `"episode_cursors"`) still lists them.
 */
export function hiddenFromListing(namespace: readonly string[], conditions: readonly MatchCondition[] | undefined): boolean {
  const root = namespace[0];
  if (root === undefined || !HIDDEN_NAMESPACE_ROOTS.includes(root)) return false;
  return !(conditions ?? []).some((c) => c.matchType === "prefix" && c.path[0] === root);
}

/**
 * The bookkeeping namespaces that belong to `prefix`: its kept versions and
 * its cursors (`["memory_history", ...prefix]`, `["memory_cursors", ...prefix]`,
 * `["episode_cursors", ...prefix]`). None for a prefix that is bookkeeping
 * itself, or for the empty prefix (which already covers them).
 */
export function bookkeepingMirrors(prefix: readonly string[]): string[][] {
  if (prefix.length === 0 || HIDDEN_NAMESPACE_ROOTS.includes(prefix[0]!)) return [];
  return HIDDEN_NAMESPACE_ROOTS.map((root) => [root, ...prefix]);
}
