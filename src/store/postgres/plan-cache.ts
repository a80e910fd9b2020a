/**
 * Remembers for a few seconds how many items a search's selection (prefix +
 * filter) held, counted up to `exactScanThreshold` + 1: whether it is small
 * (ranked exactly) or large (walked through the HNSW index), so that repeated
 * searches skip the count that decides it (the largest step of a search over
 * a big prefix once the index walk is fast), and how many items a small
 * selection's exact ranking should find.
 *
 * The count only picks a plan; every plan returns correct results. A stale
 * "small" ranks a selection that has grown exactly (slower, still right); a
 * stale "large" walks the index over a selection that has shrunk, and the
 * walk falls back to the exact plan when it runs short; a stale count of a
 * small selection that finds fewer items than it says makes the exact
 * ranking read every vector of the selection (see nearestVectors). It also
 * remembers which large selections needed iterative scans to fill a page
 * (see annVectors), and which small selections' nearest vectors did not
 * settle a page by themselves (see nearestVectors): a stale mark costs a
 * search its speed, never its results.
 * The store's own puts forget the small selections' counts (a small count
 * must not be below the selection: see nearestVectors) and keep the large
 * ones (only the plan depends on them, and puts seldom shrink a selection),
 * its deletes forget every count; other processes' writes are seen within
 * `ttlMs`.
 */
export class PlanCache {
  /** The count of each selection. */
  private readonly counts: Expiring<number>;
  /** Selections whose index walk came back short without iterative scans (see annVectors). */
  private readonly iterative: Expiring<true>;
  /** Small selections whose nearest vectors alone did not settle a page (see nearestVectors). */
  private readonly perItem: Expiring<true>;

  constructor(ttlMs = 5000, maxEntries = 1000) {
    this.counts = new Expiring(ttlMs, maxEntries);
    this.iterative = new Expiring(ttlMs, maxEntries);
    this.perItem = new Expiring(ttlMs, maxEntries);
  }

  /** The cached count of `key`'s selection, if still fresh. */
  get(key: string): number | undefined {
    return this.counts.get(key);
  }

  set(key: string, items: number): void {
    this.counts.set(key, items);
  }

  /** True when `key`'s last walk without iterative scans came back short, not long ago. */
  needsIterativeScan(key: string): boolean {
    return this.iterative.get(key) === true;
  }

  setNeedsIterativeScan(key: string): void {
    this.iterative.set(key, true);
  }

  /** True when `key`'s nearest vectors, one row each, came back short of a page not long ago (an item twice, or a row refused). */
  needsPerItemBest(key: string): boolean {
    return this.perItem.get(key) === true;
  }

  setNeedsPerItemBest(key: string): void {
    this.perItem.set(key, true);
  }

  /** Forgets the counts (the store's own deletes change them); the walks' marks stay until they expire. */
  clear(): void {
    this.counts.clear();
  }

  /**
   * Forgets the counts of at most `smallUpTo` items (the store's own puts may
   * have added to those selections) and keeps the larger ones. During a burst
   * of puts a search over a large prefix then skips the count (a scan of up to
   * `exactScanThreshold` + 1 item rows) that every write made it run again.
   */
  forgetSmall(smallUpTo: number): void {
    this.counts.deleteWhere((items) => items <= smallUpTo);
  }
}

/** Values kept `ttlMs` from when they were set, at most `maxEntries` (all dropped at once past it). */
class Expiring<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (performance.now() - e.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, at: performance.now() });
  }

  clear(): void {
    this.entries.clear();
  }

  deleteWhere(drop: (value: V) => boolean): void {
    for (const [key, e] of this.entries) if (drop(e.value)) this.entries.delete(key);
  }
}
