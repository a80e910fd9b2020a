import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";

/**
 * Picks the store a node or tool should use: the one passed in its options
 * (preferred), else the one LangGraph puts on `config.store`.
 *
 * Prefer passing the store explicitly: LangGraph wraps the compiled-in store
 * in an `AsyncBatchedStore`, which drops `put`'s `index` argument and throws
 * on `listNamespaces`.
 */
export function resolveStore(store: BaseStore | undefined, config?: LangGraphRunnableConfig): BaseStore {
  const resolved = store ?? config?.store;
  if (!resolved) {
    throw new InvalidArgumentError(
      "no memory store: pass `store` in the node's options, or compile the graph with `graph.compile({ store })`",
    );
  }
  return resolved;
}
