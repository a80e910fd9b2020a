import { describe, expect, it } from "vitest";
import { BULK_MAX_PENDING, fittedEfSearch, fittedMaxPending, VectorTableSize } from "../../src/store/postgres/fitted-ef.js";
import { tables } from "../../src/store/postgres/sql.js";

/**
 * The fitted ef_search against what bench:postgres-scale measured on
 * low-rank 512-d vectors (m 16, ef_construction 64; docs/postgres.md, "At
 * scale"): each beam is used up to half the smallest size at which it
 * missed recall@10 >= 0.98 (half the largest size benched, 300k, if it never
 * did), so a data set somewhat harder than the bench's still holds it.
 */
describe("fittedEfSearch", () => {
  it("uses ef 100 up to half the size where it missed recall (0.989 at 25k, 0.9795 at 50k)", () => {
    for (const n of [0, 2_001, 10_000, 25_000]) expect(fittedEfSearch(n)).toBe(100);
    expect(fittedEfSearch(25_001)).toBe(200);
    expect(fittedEfSearch(50_000)).toBe(200);
  });

  it("uses ef 200 up to 150k (0.996 at 100k), 300 beyond (300k)", () => {
    expect(fittedEfSearch(100_000)).toBe(200);
    expect(fittedEfSearch(150_000)).toBe(200);
    expect(fittedEfSearch(150_001)).toBe(300);
    expect(fittedEfSearch(300_000)).toBe(300);
  });

  it("never narrows the beam as the table grows", () => {
    let last = 0;
    for (let n = 0; n <= 2_000_000; n += 5_000) {
      const ef = fittedEfSearch(n);
      expect(ef).toBeGreaterThanOrEqual(last);
      last = ef;
    }
  });

  it("a store that has not read its table's size yet uses the widest beam", () => {
    expect(new VectorTableSize(tables("public", "memory_"), 512).efSearch()).toBe(fittedEfSearch(Number.POSITIVE_INFINITY));
  });

  it("counts this process's writes since the last reading, so a load widens the beam at once", async () => {
    const size = new VectorTableSize(tables("public", "memory_"), 512);
    await size.refresh(async () => 10_000, true);
    expect(size.efSearch()).toBe(100);
    size.wrote(40_000);
    expect(size.efSearch()).toBe(200);
    // A reading that sees them replaces the count; writes committed while it runs stay counted.
    let answer!: (n: number) => void;
    const reading = size.refresh(() => new Promise<number>((r) => (answer = r)), true);
    size.wrote(200_000);
    answer(50_000);
    await reading;
    expect(size.efSearch()).toBe(fittedEfSearch(250_000));
    await size.refresh(async () => 20_000, true);
    expect(size.efSearch()).toBe(100);
  });
});

/**
 * The pending bound writers wait on when the caller set none: a search
 * compares every pending vector of its scope exactly beside a walk that
 * costs about in proportion to its beam, so the bound follows the beam.
 */
describe("fittedMaxPending", () => {
  it("is 2.5 pending vectors per unit of the beam: 250 up to 25k vectors, 500 up to 150k, 750 beyond", () => {
    expect(fittedMaxPending(fittedEfSearch(10_000), false)).toBe(250);
    expect(fittedMaxPending(fittedEfSearch(100_000), false)).toBe(500);
    expect(fittedMaxPending(fittedEfSearch(300_000), false)).toBe(750);
    // A caller's beam: a narrow one leaves room for fewer pending vectors, never none.
    expect(fittedMaxPending(40, false)).toBe(100);
    expect(fittedMaxPending(0.1, false)).toBe(1);
  });

  it("during a bulk load (no HNSW index walked, every search exact) only paces the writers", () => {
    for (const ef of [40, 100, 300]) expect(fittedMaxPending(ef, true)).toBe(BULK_MAX_PENDING);
    expect(BULK_MAX_PENDING).toBe(1000);
  });
});
