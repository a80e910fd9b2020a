import type { GetOperation, PutOperation, SearchOperation } from "@langchain/langgraph-checkpoint";
import type { PutCondition } from "./conditional-put.js";
import type { QueryAdapterChoice } from "../embeddings/query-adapter.js";
import type { RetrievalMode } from "./retrieval-mode.js";

/**
 * The operation shapes this package's stores accept in `batch()`: LangGraph's
 * own, plus PostgresStore's per-call options (a put's `ttl`, a read's
 * `refreshTtl`). Every store here (HNSWStore, PostgresMemoryStore,
 * RemoteStore) honours them, including a search's `retrieval` (RemoteStore
 * sends it to the server's store; other stores ignore it and rank as they are
 * configured).
 */

/** A put operation with an optional per-put TTL (minutes; null = never expires). */
export interface MemoryPutOperation extends PutOperation {
  /**
   * Minutes until the item expires; `null` means never, overriding `ttl.defaultTtl`.
   * @default the store's `ttl.defaultTtl`
   */
  ttl?: number | null;
  /**
   * Compare-and-set: apply the batch only if the stored item's field holds
   * this value (see {@link PutCondition}); honoured by stores with
   * `conditionalPuts: true` (HNSWStore, PostgresMemoryStore, RemoteStore).
   * @default undefined (no condition)
   */
  ifValue?: PutCondition;
}

/** A get with PostgresStore's per-call `refreshTtl` (overrides the store's `ttl.refreshOnRead`). */
export interface MemoryGetOperation extends GetOperation {
  /**
   * Whether this read restarts the item's TTL.
   * @default the store's `ttl.refreshOnRead`
   */
  refreshTtl?: boolean;
}

/** A search with PostgresStore's per-call `refreshTtl` (overrides the store's `ttl.refreshOnRead`). */
export interface MemorySearchOperation extends SearchOperation {
  /**
   * Whether this search restarts the TTL of the items it returns.
   * @default the store's `ttl.refreshOnRead`
   */
  refreshTtl?: boolean;
  /**
   * How this search ranks by its `query`, overriding the store's
   * `retrieval`: `"vector"` (cosine alone), `"keyword"` (BM25 alone) or
   * `"hybrid"` (both, fused). A store without vectors ranks by keywords
   * whatever this says. Searches of one batch with the same query share one
   * query embedding, so a vector-only and a hybrid ranking cost one.
   * @default the store's `retrieval`
   */
  retrieval?: RetrievalMode;
  /**
   * Which of the embedder's query adapters this search's query vector goes
   * through (USE-lite's, trained on questions about a person), by the kind
   * of memory searched: `"facts"`, or `"episodes"` for conversation turns
   * (what `searchEpisodes` passes); `true` is the facts adapter. `false` for
   * a query that is itself a memory, such as a duplicate check ("is this
   * fact stored already?"), whose scores must stay plain cosines. A store
   * with `index.queryAdapter: false` adapts no query, whatever this says.
   * @default the facts adapter, when the store's `index.queryAdapter` is on
   */
  queryAdapter?: QueryAdapterChoice;
}
