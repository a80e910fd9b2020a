import { describe, expect, it } from "vitest";
import { vectorParam } from "../../src/store/postgres/sql.js";

/** pgvector's binary form as the store wrote it before (one writeFloatBE per dimension): the reference. */
function reference(v: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(4 + 4 * v.length);
  out.writeInt16BE(v.length, 0);
  out.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) out.writeFloatBE(v[i]!, 4 + 4 * i);
  return out;
}

describe("vectorParam (pgvector's binary vector_recv form)", () => {
  it("is byte-identical to one big-endian float4 per dimension, for random vectors and edge values", () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    for (const dims of [1, 3, 32, 512, 1536]) {
      const v = Array.from({ length: dims }, () => next() * 10 ** Math.floor(next() * 8));
      expect(vectorParam(v).equals(reference(v))).toBe(true);
      expect(vectorParam(Float32Array.from(v)).equals(reference(v))).toBe(true);
    }
    // Rounding to float4, signed zero, subnormals, beyond float4's range, the float4 limits.
    const edges = [0, -0, 1 / 3, 0.1, 1e-40, -1e-45, 1e-46, 3.4028235e38, 3.5e38, -1e39, 1.17549435e-38, 16777217, Number.MIN_VALUE, 2 ** -149];
    expect(vectorParam(edges).equals(reference(edges))).toBe(true);
    expect(vectorParam([]).equals(reference([]))).toBe(true);
  });

  it("starts with the dimension count and a zero word", () => {
    const b = vectorParam([1, 2, 3]);
    expect(b.length).toBe(16);
    expect(b.readInt16BE(0)).toBe(3);
    expect(b.readInt16BE(2)).toBe(0);
    expect([b.readFloatBE(4), b.readFloatBE(8), b.readFloatBE(12)]).toEqual([1, 2, 3]);
  });
});
