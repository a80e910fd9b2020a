import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { warnIfKeywordOnly } from "./keyword-only-warning.js";

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

/** Where {@link resolveStore} reports that it set the runtime's store aside. */
export type StoreReplacedLogger = Pick<Console, "warn">;

/** Option stores whose replacement of a runtime store was already reported. */
const reported = new WeakSet<object>();

function storeName(store: BaseStore): string {
  const label = (store as { label?: unknown }).label;
  if (typeof label === "string" && label) return label;
  const name = (store as { constructor?: { name?: string } })?.constructor?.name;
  return typeof name === "string" && name ? name : "a BaseStore";
}

/**
 * Picks the store a node, tool, middleware or extractor run uses.
 *
 * **Guarantee.** A store passed in the component's own options is ALWAYS the
 * one used, whatever store the runtime injects on `config.store` /
 * `runtime.store`: `graph.compile({ store })`, `createAgent({ store })`, or a
 * LangGraph API server (`langgraph dev`, LangGraph Platform), which replaces
 * every compiled graph's store with its own, an `InMemoryStore` without a
 * vector index. Only without that option is the runtime's store used,
 * unwrapped from LangGraph's per-run batching wrapper.
 *
 * When both are present and they are different stores, this warns once per
 * option store, naming both (the first time only, so a busy server logs one
 * line).
 *
 * @param store the store from the component's options
 * @param config the run's config (its `store` is the runtime's)
 * It also says once per process when the store it picks has no vector
 * index, so memory would recall by keywords only (see `warnIfKeywordOnly`).
 *
 * @param logger where the warnings go; `console` by default
 */
export function resolveStore(store: BaseStore | undefined, config?: LangGraphRunnableConfig, logger: StoreReplacedLogger = console): BaseStore {
  const runtime = config?.store ? underlyingStore(config.store) : undefined;
  if (store) {
    const own = underlyingStore(store);
    if (runtime && runtime !== own && !reported.has(own)) {
      reported.add(own);
      logger.warn(
        `langgraph-hnsw-memory: the runtime passed a store (${storeName(runtime)}, on config.store) and this memory component ` +
          `has its own \`store\` option (${storeName(own)}); memory uses ${storeName(own)}, and ${storeName(runtime)} is not read or written by it. ` +
          "This is expected under a LangGraph API server (`langgraph dev`, LangGraph Platform), which injects its own index-less InMemoryStore. " +
          "Logged once per store.",
      );
    }
    warnIfKeywordOnly(own, logger);
    return own;
  }
  if (!runtime) {
    throw new InvalidArgumentError(
      "no memory store: pass `store` in the node's options, or compile the graph with `graph.compile({ store })`",
    );
  }
  warnIfKeywordOnly(runtime, logger);
  return runtime;
}
