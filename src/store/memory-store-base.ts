import { BaseStore, type Item, type SearchItem } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { checkQueryAdapterChoice, type QueryAdapterChoice } from "../embeddings/query-adapter.js";
import { validateNamespace } from "./namespace.js";
import type { MemoryGetOperation, MemoryPutOperation, MemorySearchOperation } from "./operations.js";
import { validateTtlMinutes } from "./ttl.js";
import type { RetrievalMode } from "./retrieval-mode.js";

/** Options of {@link MemoryStoreBase.search}. */
export interface MemorySearchOptions {
  /** Filter on value fields (exact match or `$eq`, `$ne`, `$gt`, … operators). */
  filter?: Record<string, unknown>;
  /**
   * Most items returned.
   * @default 10
   */
  limit?: number;
  /**
   * Items skipped first.
   * @default 0
   */
  offset?: number;
  /** Text to rank by relevance; without it, most recently updated first. */
  query?: string;
  /**
   * Whether this search restarts the TTL of the items it returns.
   * @default the store's `ttl.refreshOnRead`
   */
  refreshTtl?: boolean;
  /**
   * How this search ranks by `query`, overriding the store's `retrieval`:
   * `"vector"`, `"keyword"` or `"hybrid"` (see {@link MemorySearchOperation}).
   * @default the store's `retrieval`
   */
  retrieval?: RetrievalMode;
  /**
   * Which of the embedder's query adapters this search's query goes through
   * (see {@link MemorySearchOperation}): `"facts"` (also `true`), `"episodes"`,
   * or `false`, which keeps scores plain cosines for a query that is itself a
   * memory (a duplicate check).
   * @default the facts adapter, when the store's `index.queryAdapter` is on
   */
  queryAdapter?: QueryAdapterChoice;
}

/** Options of {@link MemoryStoreBase.get}. */
export interface MemoryGetOptions {
  /**
   * Whether this read restarts the item's TTL.
   * @default the store's `ttl.refreshOnRead`
   */
  refreshTtl?: boolean;
}

/** Options of {@link MemoryStoreBase.put}. */
export interface MemoryPutOptions {
  /**
   * Minutes until the item expires; `null` means never, overriding `ttl.defaultTtl`.
   * @default the store's `ttl.defaultTtl`
   */
  ttl?: number | null;
}

function checkRefreshTtl(value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") throw new InvalidArgumentError(`refreshTtl must be a boolean, got ${JSON.stringify(value)}`);
}

/**
 * The `BaseStore` entry points every store of this package shares: `get`,
 * `search`, `put` and `delete` check their input with this package's rules
 * (`src/store/namespace.ts`; LangGraph's base refuses ':' and knows no TTL),
 * then route through `batch()`, so every entry point behaves as a batch of
 * one does. A store only implements `batch()`.
 *
 * Per-call options as in PostgresStore: `refreshTtl` on get and search
 * (overrides `ttl.refreshOnRead`), `ttl` (minutes) on put.
 */
export abstract class MemoryStoreBase extends BaseStore {
  /**
   * Reads an item. `options.refreshTtl` (as in PostgresStore) overrides
   * `ttl.refreshOnRead` for this read.
   */
  override async get(namespace: string[], key: string, options: MemoryGetOptions = {}): Promise<Item | null> {
    validateNamespace(namespace);
    checkRefreshTtl(options.refreshTtl);
    const op: MemoryGetOperation = { namespace, key };
    if (options.refreshTtl !== undefined) op.refreshTtl = options.refreshTtl;
    return (await this.batch([op]))[0];
  }

  /**
   * Searches under a prefix. `options.refreshTtl` (as in PostgresStore)
   * overrides `ttl.refreshOnRead` for the items this search returns.
   */
  override async search(namespacePrefix: string[], options: MemorySearchOptions = {}): Promise<SearchItem[]> {
    validateNamespace(namespacePrefix, { what: "namespace prefix" });
    checkRefreshTtl(options.refreshTtl);
    const { filter, limit = 10, offset = 0, query, refreshTtl, retrieval, queryAdapter } = options;
    checkQueryAdapterChoice(queryAdapter);
    const op: MemorySearchOperation = { namespacePrefix, filter, limit, offset, query };
    if (refreshTtl !== undefined) op.refreshTtl = refreshTtl;
    if (retrieval !== undefined) op.retrieval = retrieval;
    if (queryAdapter !== undefined) op.queryAdapter = queryAdapter;
    return (await this.batch([op]))[0];
  }

  /**
   * Stores (or replaces) an item. `options.ttl` is in minutes; `null` means
   * never expire, overriding `ttl.defaultTtl`.
   */
  override async put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
    options: MemoryPutOptions = {},
  ): Promise<void> {
    validateNamespace(namespace, { forWrite: true });
    validateTtlMinutes(options.ttl, "put ttl");
    const op: MemoryPutOperation = { namespace, key, value, index };
    if (options.ttl !== undefined) op.ttl = options.ttl;
    await this.batch([op]);
  }

  /** Deletes an item (nothing happens when there is none). */
  override async delete(namespace: string[], key: string): Promise<void> {
    validateNamespace(namespace);
    await this.batch([{ namespace, key, value: null }]);
  }
}
