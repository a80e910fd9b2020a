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
 * (see annVectors): a stale mark costs a walk its speed, never its results.
 * The store clears the counts on each of its own writes; other processes'
 * writes are seen within `ttlMs`.
 */
export class PlanCache {
  private readonly decisions = new Map<string, { items: number; at: number }>();
  /** Selections whose index walk came back short without iterative scans (see annVectors), and when. */
  private readonly iterative = new Map<string, number>();

  constructor(
    private readonly ttlMs = 5000,
    private readonly maxEntries = 1000,
  ) {}

  /** The cached count of `key`'s selection, if still fresh. */
  get(key: string): number | undefined {
    const d = this.decisions.get(key);
    if (!d) return undefined;
    if (performance.now() - d.at > this.ttlMs) {
      this.decisions.delete(key);
      return undefined;
    }
    return d.items;
  }

  set(key: string, items: number): void {
    if (this.decisions.size >= this.maxEntries) this.decisions.clear();
    this.decisions.set(key, { items, at: performance.now() });
  }

  /** True when `key`'s last walk without iterative scans came back short, not long ago. */
  needsIterativeScan(key: string): boolean {
    const at = this.iterative.get(key);
    if (at === undefined) return false;
    if (performance.now() - at > this.ttlMs) {
      this.iterative.delete(key);
      return false;
    }
    return true;
  }

  setNeedsIterativeScan(key: string): void {
    if (this.iterative.size >= this.maxEntries) this.iterative.clear();
    this.iterative.set(key, performance.now());
  }

  /** Forgets the counts (the store's own writes change them); the walks' marks stay until they expire. */
  clear(): void {
    this.decisions.clear();
  }
}
