/** The vector cache behind exact scans: bounded, and second-chance eviction keeps what searches use. */
import { describe, expect, it } from "vitest";
import { VectorCache } from "../../src/store/hnsw/vector-cache.js";

const vec = (x: number) => Float32Array.of(x);

describe("VectorCache", () => {
  it("never holds more than its limit, and evicts what was not read since it was added", () => {
    const c = new VectorCache(3);
    for (const l of [1, 2, 3]) c.set(l, vec(l));
    c.get(1);
    c.get(3);
    c.set(4, vec(4)); // 2 was never read: it goes; 1 and 3 get a second chance
    expect(c.size).toBe(3);
    expect(c.get(2)).toBeUndefined();
    expect([1, 3, 4].map((l) => c.get(l)?.[0])).toEqual([1, 3, 4]);
    for (let l = 5; l < 5000; l++) {
      c.set(l, vec(l));
      c.get(1); // read before every insert: never evicted
      expect(c.size).toBeLessThanOrEqual(3);
    }
    expect(c.get(1)?.[0]).toBe(1);
    expect(c.get(4999)?.[0]).toBe(4999);
  });

  it("replaces a label's vector in place, deletes, and grows for large labels", () => {
    const c = new VectorCache(2);
    c.set(7, vec(1));
    c.set(7, vec(2));
    expect(c.size).toBe(1);
    expect(c.get(7)?.[0]).toBe(2);
    c.delete(7);
    expect(c.get(7)).toBeUndefined();
    c.set(1_000_000, vec(3));
    expect(c.get(1_000_000)?.[0]).toBe(3);
  });
});
