import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { CURSOR_NAMESPACE_ROOT } from "../store/hidden-namespaces.js";
import { memoryNamespace, type NamespaceValues } from "./memory-namespace.js";
import type { NamespaceTemplate } from "./namespace-template.js";
import { waitForPendingWrites } from "./pending-writes.js";
import { underlyingStore } from "./resolve-store.js";

/** What {@link forgetUser} deleted. */
export interface ForgetUserResult {
  /** The user's namespace, as stored. */
  namespace: string[];
  /** Memories deleted (items under the namespace). */
  memories: number;
  /** Extraction cursors deleted (items under `["memory_cursors", ...namespace]`). */
  cursors: number;
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
 * AND the extractor's cursors for it, on any `BaseStore`. Background
 * extractions for that namespace are run to completion first, so none lands
 * after the delete. On `HNSWStore`, call `compact()` afterwards for the
 * deleted texts and vectors to leave the disk at once.
 *
 * @example
 * ```ts
 * await forgetUser(store, ["users", "{user_id}"], { user_id: "alice@example.com" });
 * ```
 */
export async function forgetUser(store: BaseStore, template: NamespaceTemplate, values: NamespaceValues): Promise<ForgetUserResult> {
  const namespace = memoryNamespace(template, values);
  const real = underlyingStore(store);
  await waitForPendingWrites(real, namespace);
  const memories = await deleteUnder(real, namespace);
  const cursors = await deleteUnder(real, [CURSOR_NAMESPACE_ROOT, ...namespace]);
  return { namespace, memories, cursors };
}
