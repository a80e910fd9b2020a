import { BaseStore, type Operation, type OperationResults } from "@langchain/langgraph-checkpoint";
import { StoreClosedError } from "../errors.js";
import { hasNearestInNamespace, type NearestItem } from "../store/nearest.js";

type AnyStore = BaseStore & { close?: () => Promise<void> };

/**
 * A store that is built on first use: `open` runs once, at the first call,
 * and every call then goes to the store it returned. Nothing runs in the
 * constructor, so a graph module can create it at import time (as
 * `memoryStoreFromEnv()` does for PostgreSQL, whose module is loaded by a
 * dynamic import only then). A failed open is not cached: the next call
 * tries again.
 *
 * @example
 * ```ts
 * const store = new LazyStore("PostgresMemoryStore", async () => {
 *   const { PostgresMemoryStore } = await import("langgraph-hnsw-memory/postgres");
 *   return new PostgresMemoryStore({ connectionString: process.env.DATABASE_URL, index });
 * });
 * ```
 */
export class LazyStore extends BaseStore {
  private opening?: Promise<AnyStore>;
  private closed = false;

  /**
   * @param label how logs and errors name the store, e.g. "PostgresMemoryStore"
   * @param open builds the store
   */
  constructor(
    readonly label: string,
    private readonly open: () => Promise<BaseStore>,
  ) {
    super();
  }

  /** The store, built at the first call. */
  async inner(): Promise<AnyStore> {
    if (this.closed) throw new StoreClosedError(`${this.label} (from memoryStoreFromEnv) was closed`);
    this.opening ??= this.open().then(
      (s) => s as AnyStore,
      (e) => {
        this.opening = undefined;
        throw e;
      },
    );
    return this.opening;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return (await this.inner()).batch(operations);
  }

  // The entry points go to the built store's own (they take per-call options, such as a put's ttl).
  async get(...args: Parameters<BaseStore["get"]>): ReturnType<BaseStore["get"]> {
    return (await this.inner()).get(...args);
  }
  async search(...args: Parameters<BaseStore["search"]>): ReturnType<BaseStore["search"]> {
    return (await this.inner()).search(...args);
  }
  async put(...args: Parameters<BaseStore["put"]>): ReturnType<BaseStore["put"]> {
    return (await this.inner()).put(...args);
  }
  async delete(...args: Parameters<BaseStore["delete"]>): ReturnType<BaseStore["delete"]> {
    return (await this.inner()).delete(...args);
  }
  async listNamespaces(...args: Parameters<BaseStore["listNamespaces"]>): ReturnType<BaseStore["listNamespaces"]> {
    return (await this.inner()).listNamespaces(...args);
  }

  /** As the built store's (`undefined` when it cannot compare by vectors). */
  async nearestInNamespace(namespace: string[], text: string): Promise<NearestItem | null | undefined> {
    const s = await this.inner();
    return hasNearestInNamespace(s) ? s.nearestInNamespace(namespace, text) : undefined;
  }

  /** Closes the built store, if it was built; later calls fail with `StoreClosedError`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opening = this.opening;
    if (!opening) return;
    const s = await opening.catch(() => undefined);
    if (s && typeof s.close === "function") await s.close();
  }
}
