/**
 * The fields every stored item carries, whatever holds it: the HNSW store's
 * in-memory table (`StoredItem`), migration and JSONL exports (`MemoryEntry`).
 * Times are milliseconds since the epoch.
 */
export interface ItemRecord {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch. */
  updatedAt: number;
  /** Expiry in ms since the epoch; absent = never. */
  expiresAt?: number;
  /** TTL in minutes (for refresh on read); absent = none. */
  ttl?: number;
  /** The put's index override; absent = the store's fields. */
  index?: false | string[];
}
