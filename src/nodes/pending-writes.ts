import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { underlyingStore } from "./resolve-store.js";

/**
 * Tracks memory writes that run in the background (debounced extraction), so
 * that a later recall on the same namespace can wait for them first. Keyed by
 * the real store, so LangGraph's per-run wrappers of it share one registry.
 */
const pending = new WeakMap<BaseStore, Map<string, Set<Promise<unknown>>>>();

const nsKey = (namespace: readonly string[]) => JSON.stringify(namespace);

/** Registers a background write on `namespace`; it is forgotten when it settles. */
export function trackPendingWrite(store: BaseStore, namespace: readonly string[], work: Promise<unknown>): void {
  store = underlyingStore(store);
  let byNs = pending.get(store);
  if (!byNs) pending.set(store, (byNs = new Map()));
  const key = nsKey(namespace);
  let set = byNs.get(key);
  if (!set) byNs.set(key, (set = new Set()));
  const entry = work.then(
    () => undefined,
    () => undefined,
  );
  set.add(entry);
  void entry.then(() => {
    set!.delete(entry);
    if (set!.size === 0) byNs!.delete(key);
  });
}

/** Resolves once every background write registered on `namespace` has settled. */
export async function waitForPendingWrites(store: BaseStore, namespace: readonly string[]): Promise<void> {
  const set = pending.get(underlyingStore(store))?.get(nsKey(namespace));
  if (set && set.size > 0) await Promise.all([...set]);
}
