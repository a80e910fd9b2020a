/** Where an item lives: its namespace and key. */
export interface ItemAddress {
  namespace: string[];
  key: string;
}

/** An item's times, in milliseconds since the epoch. */
export interface ItemTimes {
  createdAt: number;
  updatedAt: number;
  /** Expiry; absent = never. */
  expiresAt?: number;
}

/**
 * The fields every stored item carries, whatever holds it: the HNSW store's
 * in-memory table (`StoredItem`), migration and JSONL exports (`MemoryEntry`).
 */
export interface ItemRecord extends ItemAddress, ItemTimes {
  value: Record<string, unknown>;
  /** TTL in minutes (for refresh on read); absent = none. */
  ttl?: number;
  /** The put's index override; absent = the store's fields. */
  index?: false | string[];
}
