import type { ItemRecord } from "../store/item-record.js";

/**
 * The portable form of one stored item, as migration moves it between stores
 * and through JSONL exports: value, timestamps, TTL, the put's index override
 * and (when the embedder is known) its vectors.
 */
export interface MemoryEntry extends ItemRecord {
  /** One vector per indexed field text, from the embedder in {@link EmbedderInfo}. */
  vectors?: { field: string; vector: number[] }[];
}

/** Which embedder built a store's vectors. */
export interface EmbedderInfo {
  identity: string;
  dims: number;
  fields: string[];
}

/**
 * A store that migration can read from and write to. `HNSWStore` and
 * `PostgresMemoryStore` implement it.
 */
export interface MigratableStore {
  /** The store's embedder, or null when it has no vector index. */
  describeIndex(): Promise<EmbedderInfo | null>;
  /** Every item (expired ones included), in pages of at most `batchSize`. */
  exportEntries(options?: { batchSize?: number; vectors?: boolean }): AsyncIterable<MemoryEntry[]>;
  /**
   * Writes entries as they are (timestamps and TTLs kept), replacing items
   * with the same namespace and key: a re-run does not duplicate. Entries
   * without vectors are embedded by the store's own embedder.
   */
  importEntries(entries: MemoryEntry[]): Promise<void>;
}

export const entryId = (e: Pick<MemoryEntry, "namespace" | "key">): string => JSON.stringify([e.namespace, e.key]);

export function isMigratable(store: unknown): store is MigratableStore {
  const s = store as Partial<MigratableStore>;
  return typeof s?.describeIndex === "function" && typeof s.exportEntries === "function" && typeof s.importEntries === "function";
}
