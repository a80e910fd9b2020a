import type { NearestItem } from "../nearest.js";
import type { StoreStats } from "./options.js";
import { nearestInGroup } from "./search.js";
import type { StoreFiles } from "./store-files.js";
import type { StoreState } from "./store-state.js";

// Read-only questions HNSWStore answers from its state, under a read lock.

/** Number of live items under `prefix`. */
export function countLive(state: StoreState, prefix: string[], now: number): number {
  let n = 0;
  for (const g of state.items.groupsUnder(prefix)) for (const item of g.items.values()) if (item.expiresAt === undefined || item.expiresAt > now) n++;
  return n;
}

/** When the item expires: a Date, null when it never expires, undefined when there is no such live item. */
export function expiryIn(state: StoreState, namespace: string[], key: string, clock: () => number): Date | null | undefined {
  const item = state.items.get(namespace, key);
  if (!item || (item.expiresAt !== undefined && item.expiresAt <= clock())) return undefined;
  return item.expiresAt === undefined ? null : new Date(item.expiresAt);
}

/** The live item stored exactly under `namespace` nearest to `vector`; null when none there has a vector. */
export function nearestIn(state: StoreState, namespace: string[], vector: readonly number[], now: number): NearestItem | null {
  const group = state.items.group(namespace);
  const hit = group && nearestInGroup(state, group, vector, now);
  return hit ? { key: hit.item.key, score: hit.score } : null;
}

/** Items, vectors, deleted labels and file sizes. */
export function stateStats(state: StoreState, files: StoreFiles | undefined): StoreStats {
  return {
    items: state.items.size,
    vectors: state.vectors?.liveCount ?? 0,
    deletedLabels: state.vectors?.removedCount ?? 0,
    capacity: state.vectors?.capacity ?? 0,
    efSearch: state.vectors?.settings.efSearch ?? 0,
    logBytes: files?.logBytes ?? 0,
    files: files?.fileSizes() ?? {},
  };
}
