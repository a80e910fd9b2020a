/**
 * Vectors as base64 of little-endian float32: the precision hnswlib stores,
 * at a third of the size of JSON numbers. Used by the embedding cache file
 * and by the store's write-ahead log.
 */
export function encodeVector(v: ArrayLike<number>): string {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString("base64");
}

/** Inverse of {@link encodeVector}; undefined when the text is not a whole number of floats. */
export function decodeVector(b64: string): Float32Array | undefined {
  const buf = Buffer.from(b64, "base64");
  if (buf.length === 0 || buf.length % 4 !== 0) return undefined;
  const out = new Float32Array(buf.length / 4);
  Buffer.from(out.buffer).set(buf);
  return out;
}
