import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { CURSOR_NAMESPACE_ROOT, EPISODE_CURSOR_ROOT, HISTORY_NAMESPACE_ROOT } from "../store/hidden-namespaces.js";
import { underlyingStore } from "./resolve-store.js";

/** What {@link erasePrefixes} removed under one prefix. */
export interface ErasedPrefix {
  namespace: string[];
  /** Items under the prefix. */
  items: number;
  /** Kept versions (`["memory_history", ...prefix]`). */
  history: number;
  /** Extraction and episode cursors (`["memory_cursors" | "episode_cursors", ...prefix]`). */
  cursors: number;
}

/**
 * A wrapper store (ProtectedStore) names the store that erasure must reach
 * under this key: deleting through the wrapper would keep the deleted values
 * as versions.
 */
export const ERASE_TARGET: unique symbol = Symbol.for("langgraph-hnsw-memory.eraseTarget");

type Erasable = BaseStore & {
  deleteNamespace?: (prefix: string[], options?: { purge?: boolean }) => Promise<number>;
  compact?: () => Promise<void>;
  [ERASE_TARGET]?: BaseStore;
};

/** The store under LangGraph's batching wrapper and under any wrapper that names its {@link ERASE_TARGET}. */
function eraseTarget(store: BaseStore): Erasable {
  let real = underlyingStore(store) as Erasable;
  while (real[ERASE_TARGET]) real = underlyingStore(real[ERASE_TARGET]) as Erasable;
  return real;
}

/** Items read per round when a store has no `deleteNamespace`. */
const PAGE = 500;

/** Deletes every item under `prefix` (deferring an HNSWStore's purge). */
async function deleteUnder(store: Erasable, prefix: string[]): Promise<number> {
  if (typeof store.deleteNamespace === "function") return store.deleteNamespace(prefix, { purge: false });
  let deleted = 0;
  for (;;) {
    const items = await store.search(prefix, { limit: PAGE });
    if (items.length === 0) return deleted;
    await store.batch(items.map((i) => ({ namespace: i.namespace, key: i.key, value: null })));
    deleted += items.length;
  }
}

/**
 * The one erasure every "forget" path runs: for each prefix, its items, its
 * kept versions and its extraction and episode cursors, on the store under
 * LangGraph's batching wrapper and under a `ProtectedStore` (which would
 * otherwise version the deletes). Then, on a store that can (`HNSWStore`),
 * one compaction purges the texts and vectors from every file.
 */
export async function erasePrefixes(store: BaseStore, prefixes: string[][]): Promise<ErasedPrefix[]> {
  const real = eraseTarget(store);
  const out: ErasedPrefix[] = [];
  for (const namespace of prefixes) {
    const history = await deleteUnder(real, [HISTORY_NAMESPACE_ROOT, ...namespace]);
    const cursors = (await deleteUnder(real, [CURSOR_NAMESPACE_ROOT, ...namespace])) + (await deleteUnder(real, [EPISODE_CURSOR_ROOT, ...namespace]));
    const items = await deleteUnder(real, namespace);
    out.push({ namespace, items, history, cursors });
  }
  if (typeof real.compact === "function" && out.some((r) => r.items + r.history + r.cursors > 0)) await real.compact();
  return out;
}

/**
 * After `targets` were deleted (through whatever store the caller uses, so
 * that an audit trail records it): erases their kept versions — including
 * the one a ProtectedStore just made of the delete — and purges the store's
 * files where it can. Returns the number of versions erased.
 */
export async function eraseVersionsOf(store: BaseStore, targets: { namespace: string[]; key: string }[]): Promise<number> {
  const real = eraseTarget(store);
  let erased = 0;
  for (const t of targets) {
    const ns = [HISTORY_NAMESPACE_ROOT, ...t.namespace];
    for (;;) {
      const page = (await real.search(ns, { filter: { key: t.key }, limit: PAGE })).filter((i) => i.namespace.length === ns.length);
      if (page.length === 0) break;
      await real.batch(page.map((i) => ({ namespace: i.namespace, key: i.key, value: null })));
      erased += page.length;
    }
  }
  if (targets.length > 0 && typeof real.compact === "function") await real.compact();
  return erased;
}
