import { createHash } from "node:crypto";
import { entryId, type MemoryEntry } from "./entry.js";

/** JSON with object keys sorted at every level (PostgreSQL's jsonb reorders keys). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v as object).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

/**
 * An order-independent checksum over items' content: namespace, key, value,
 * timestamps, expiry, TTL and index override (not vectors, which a
 * re-embedding legitimately changes). Each item's SHA-256 is summed mod 2^128.
 */
export class ContentChecksum {
  private sum = 0n;
  count = 0;

  add(e: MemoryEntry): void {
    const text = canonicalJson([e.namespace, e.key, e.value, e.createdAt, e.updatedAt, e.expiresAt ?? null, e.ttl ?? null, e.index ?? null]);
    const h = createHash("sha256").update(text).digest();
    this.sum = (this.sum + BigInt(`0x${h.subarray(0, 16).toString("hex")}`)) & ((1n << 128n) - 1n);
    this.count++;
  }

  get hex(): string {
    return this.sum.toString(16).padStart(32, "0");
  }
}

export { entryId };
