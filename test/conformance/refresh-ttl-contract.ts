import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError, type HNSWGetOperation, type HNSWSearchOperation } from "../../src/index.js";
import type { MemoryStoreBase } from "../../src/store/memory-store-base.js";

const MIN = 60_000;

/** What a refresh-TTL factory gets: the store's `ttl.refreshOnRead` and a clock the test moves. */
export interface RefreshTtlSetup {
  refreshOnRead: boolean;
  clock: () => number;
}

/**
 * A store whose items expire 10 minutes after a put (`ttl.defaultTtl: 10`,
 * no sweeper), with `fields: ["text"]` indexed, on the given clock.
 */
export type RefreshTtlFactory = (setup: RefreshTtlSetup) => Promise<{ store: MemoryStoreBase; cleanup: () => Promise<void> }>;

/**
 * Per-call `refreshTtl` on get and search (PostgresStore's option) and in
 * batch() operations, written once for every store of the package.
 */
export function describeRefreshTtl(name: string, factory: RefreshTtlFactory): void {
  describe(`per-call refreshTtl: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });
    async function setup(refreshOnRead: boolean) {
      let now = Date.UTC(2026, 0, 1);
      const { store, cleanup } = await factory({ refreshOnRead, clock: () => now });
      cleanups.push(cleanup);
      return { store, advance: (m: number) => (now += m * MIN) };
    }

    it("refreshTtl: false on get and search leaves the TTL running when the store refreshes on read", async () => {
      const { advance, store } = await setup(true);
      await store.put(["a"], "k", { text: "tea" });
      advance(6);
      expect(await store.get(["a"], "k", { refreshTtl: false })).not.toBeNull();
      expect(await store.search(["a"], { query: "tea", refreshTtl: false })).toHaveLength(1);
      advance(6);
      expect(await store.get(["a"], "k")).toBeNull();
    });

    it("refreshTtl: true on get and on search restarts the TTL when the store does not", async () => {
      const { advance, store } = await setup(false);
      await store.put(["a"], "g", { text: "coffee" });
      await store.put(["a"], "s", { text: "juice" });
      await store.put(["a"], "n", { text: "water" });
      advance(6);
      await store.get(["a"], "g", { refreshTtl: true });
      await store.search(["a"], { query: "juice", filter: { text: "juice" }, refreshTtl: true });
      await store.get(["a"], "n");
      advance(6);
      expect(await store.get(["a"], "g")).not.toBeNull();
      expect(await store.get(["a"], "s")).not.toBeNull();
      expect(await store.get(["a"], "n")).toBeNull();
    });

    it("per operation inside batch(); a non-boolean is refused by name", async () => {
      const { advance, store } = await setup(true);
      await store.put(["a"], "x", { text: "x" });
      await store.put(["a"], "y", { text: "y" });
      advance(6);
      await store.batch([
        { namespace: ["a"], key: "x", refreshTtl: false } as HNSWGetOperation,
        { namespace: ["a"], key: "y", refreshTtl: true } as HNSWGetOperation,
        { namespacePrefix: ["a"], limit: 10, refreshTtl: false } as HNSWSearchOperation,
      ]);
      advance(6);
      expect(await store.get(["a"], "x")).toBeNull();
      expect(await store.get(["a"], "y")).not.toBeNull();
      await expect(store.get(["a"], "y", { refreshTtl: "yes" as never })).rejects.toThrow(InvalidArgumentError);
      await expect(store.search(["a"], { refreshTtl: 1 as never })).rejects.toThrow(InvalidArgumentError);
    });

    it("put's ttl (minutes, null = never) overrides the store's defaultTtl", async () => {
      const { advance, store } = await setup(false);
      await store.put(["a"], "short", { text: "s" }, undefined, { ttl: 1 });
      await store.put(["a"], "never", { text: "n" }, undefined, { ttl: null });
      await store.put(["a"], "default", { text: "d" });
      advance(2);
      expect(await store.get(["a"], "short")).toBeNull();
      expect(await store.get(["a"], "default")).not.toBeNull();
      advance(60 * 24 * 365);
      expect(await store.get(["a"], "default")).toBeNull();
      expect(await store.get(["a"], "never")).not.toBeNull();
      await expect(store.put(["a"], "bad", { text: "b" }, undefined, { ttl: -1 })).rejects.toThrow(InvalidArgumentError);
    });
  });
}
