/**
 * A bounded label → vector map that evicts by second chance (CLOCK): a hit
 * only sets a bit in a typed array, so the search path never reorders the
 * map. (Moving each hit to the end of a `Map`, as an exact LRU does, cost
 * two map writes per vector per search, and those writes grew several times
 * slower in a process holding a large heap, which made one user's search
 * depend on how many other users the store held.)
 */
export class VectorCache {
  private readonly map = new Map<number, Float32Array>();
  private referenced = new Uint8Array(1024);

  constructor(readonly limit: number) {}

  get size(): number {
    return this.map.size;
  }

  get(label: number): Float32Array | undefined {
    const v = this.map.get(label);
    if (v !== undefined) this.referenced[label] = 1;
    return v;
  }

  set(label: number, v: Float32Array): void {
    this.reserve(label);
    if (!this.map.has(label)) {
      while (this.map.size >= this.limit) this.evictOne();
      this.referenced[label] = 0;
    }
    this.map.set(label, v);
  }

  delete(label: number): void {
    this.map.delete(label);
  }

  /** Drops the oldest entry not used since it was last passed over; used ones go to the back. */
  private evictOne(): void {
    for (const [label, v] of this.map) {
      this.map.delete(label);
      if (this.referenced[label] !== 1) return;
      this.referenced[label] = 0;
      this.map.set(label, v);
    }
  }

  private reserve(label: number): void {
    if (label < this.referenced.length) return;
    let size = this.referenced.length;
    while (size <= label) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.referenced);
    this.referenced = grown;
  }
}
