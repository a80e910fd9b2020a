import type { BaseStore } from "@langchain/langgraph-checkpoint";

/**
 * The store behind LangGraph's per-run `AsyncBatchedStore` wrapper (what
 * `config.store` holds inside a node), or the store itself.
 *
 * Extraction must not go through the wrapper: it stops processing its queue
 * when the run ends (a debounced extraction would hang forever), it drops
 * `put`'s `index` argument, and its `batch()` throws.
 */
export function underlyingStore(store: BaseStore): BaseStore {
  if (!store || typeof store !== "object") return store;
  const s = store as BaseStore & { lg_name?: unknown; store?: BaseStore };
  return s.lg_name === "AsyncBatchedStore" && s.store ? s.store : store;
}
