/**
 * Remembers for a few seconds whether a search's selection (prefix + filter)
 * was small (ranked exactly) or large (walked through the HNSW index), so that
 * repeated searches skip the count that decides it (reading up to
 * `exactScanThreshold` + 1 rows: the largest step of a search over a big
 * prefix once the index walk is fast).
 *
 * The decision only picks a plan; both plans return correct results. A stale
 * "small" ranks a selection that has grown exactly (slower, still right); a
 * stale "large" walks the index over a selection that has shrunk, and the
 * walk falls back to the exact plan when it runs short. The store clears the
 * cache on each of its own writes; other processes' writes are seen within
 * `ttlMs`.
 */
export class PlanCache {
  private readonly decisions = new Map<string, { small: boolean; at: number }>();

  constructor(
    private readonly ttlMs = 5000,
    private readonly maxEntries = 1000,
  ) {}

  /** The cached decision for `key`, if still fresh. */
  get(key: string): boolean | undefined {
    const d = this.decisions.get(key);
    if (!d) return undefined;
    if (performance.now() - d.at > this.ttlMs) {
      this.decisions.delete(key);
      return undefined;
    }
    return d.small;
  }

  set(key: string, small: boolean): void {
    if (this.decisions.size >= this.maxEntries) this.decisions.clear();
    this.decisions.set(key, { small, at: performance.now() });
  }

  clear(): void {
    this.decisions.clear();
  }
}
