import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";

/**
 * The store behind LangGraph's per-run `AsyncBatchedStore` wrapper (what
 * `config.store` holds inside a node), or the store itself.
 *
 * Memory code must not go through the wrapper: it stops processing its queue
 * when the run ends (a background write would hang forever), it drops
 * `put`'s `index` argument, and its `listNamespaces` throws.
 */
export function underlyingStore(store: BaseStore): BaseStore {
  if (!store || typeof store !== "object") return store;
  const s = store as BaseStore & { lg_name?: unknown; store?: BaseStore };
  return s.lg_name === "AsyncBatchedStore" && s.store ? s.store : store;
}

/**
 * Picks the store a node or tool should use: the one passed in its options
 * (preferred), else the one LangGraph puts on `config.store`, unwrapped from
 * LangGraph's per-run batching wrapper.
 */
export function resolveStore(store: BaseStore | undefined, config?: LangGraphRunnableConfig): BaseStore {
  const resolved = store ?? config?.store;
  if (!resolved) {
    throw new InvalidArgumentError(
      "no memory store: pass `store` in the node's options, or compile the graph with `graph.compile({ store })`",
    );
  }
  return underlyingStore(resolved);
}
