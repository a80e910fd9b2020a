/**
 * `ttl: { defaultTtl: null }` means "never expires", as a per-put `ttl: null`
 * does (it used to expire every put at creation). One contract, run against
 * each store by its own suite.
 */
import { expect, it } from "vitest";
import type { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";

/** What the contract uses (both stores take a per-put `{ ttl }` as put's fifth argument). */
type Opened = Pick<HNSWStore, "put" | "get" | "search" | "close">;

export function ttlNullContract(open: (options: { ttl: { defaultTtl: null }; clock: () => number }) => Opened): void {
  it("keeps every acknowledged put; a per-put ttl still expires", async () => {
    let now = 1_000_000;
    const store = open({ ttl: { defaultTtl: null }, clock: () => now });
    await store.put(["u"], "kept", { text: "kept" });
    await store.put(["u"], "short", { text: "short" }, undefined, { ttl: 1 });
    now += 10 * 60_000;
    expect((await store.get(["u"], "kept"))?.value).toEqual({ text: "kept" });
    expect(await store.get(["u"], "short")).toBeNull();
    expect((await store.search(["u"])).map((i) => i.key)).toEqual(["kept"]);
    await store.close();
  });
}
