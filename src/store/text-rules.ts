import { InvalidArgumentError } from "../errors.js";

/**
 * Rules for the strings every store of the package keeps (labels, keys,
 * value strings and value object keys), so that HNSWStore, the PostgreSQL
 * store and the server accept and refuse the same input with the same
 * named errors. PostgreSQL cannot keep NUL in text or jsonb, turns a lone
 * UTF-16 surrogate into U+FFFD (two labels that differ only in their lone
 * surrogate would become one namespace: a collision between tenants), and
 * refuses primary-key entries over ~2.7 KB; JSON files cannot round-trip
 * lone surrogates either. So no store accepts them.
 */

/** Longest key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

/** Longest namespace (its labels joined with `.`), in UTF-8 bytes. */
export const MAX_NAMESPACE_BYTES = 1024;

/** Why a string cannot be stored as it is (NUL, or a lone surrogate), or undefined. */
export function textProblem(s: string): string | undefined {
  if (s.includes("\0")) return "contains a NUL character (U+0000)";
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return "contains a lone UTF-16 surrogate (not valid Unicode)";
  return undefined;
}

/** UTF-8 length of `s`. */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/**
 * Checks an item key: a string without NUL or lone surrogates, at most
 * {@link MAX_KEY_BYTES} bytes in UTF-8.
 * @throws {InvalidArgumentError} naming the key.
 */
export function validateKey(key: unknown, where: string): asserts key is string {
  if (typeof key !== "string") throw new InvalidArgumentError(`${where}: key must be a string, got ${JSON.stringify(key)}`);
  const problem = textProblem(key);
  if (problem) throw new InvalidArgumentError(`${where}: key ${JSON.stringify(key.slice(0, 80))} ${problem}`);
  const bytes = utf8Bytes(key);
  if (bytes > MAX_KEY_BYTES) throw new InvalidArgumentError(`${where}: key ${JSON.stringify(key.slice(0, 40))}… is ${bytes} bytes in UTF-8; the limit is ${MAX_KEY_BYTES} (MAX_KEY_BYTES)`);
}
