import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MIN = 60_000;

function setup(ttl: NonNullable<ConstructorParameters<typeof HNSWStore>[0]>["ttl"], persistent = true) {
  let now = Date.UTC(2026, 0, 1);
  const clock = { now: () => now, advance: (minutes: number) => (now += minutes * MIN) };
  let path: string | undefined;
  if (persistent) {
    const t = tempDir();
    cleanups.push(t.cleanup);
    path = t.dir;
  }
  const make = () => {
    const store = new HNSWStore({ path, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] }, ttl, clock: clock.now });
    cleanups.push(() => store.close());
    return store;
  };
  return { clock, make, store: make() };
}

describe("TTL", () => {
  it("never returns an expired item from get, search or listNamespaces", async () => {
    const { clock, store } = setup({ defaultTtl: 10, refreshOnRead: false, sweepIntervalMinutes: 0 });
    await store.put(["users", "1"], "short", { text: "short lived note" });
    await store.put(["users", "1"], "forever", { text: "permanent note" }, undefined, { ttl: null });
    await store.put(["users", "2"], "long", { text: "long lived note" }, undefined, { ttl: 60 });
    clock.advance(9);
    expect(await store.get(["users", "1"], "short")).not.toBeNull();
    clock.advance(2);
    expect(await store.get(["users", "1"], "short")).toBeNull();
    expect((await store.search(["users"], { query: "short lived note" })).map((r) => r.key).sort()).toEqual(["forever", "long"]);
    expect((await store.search(["users"])).map((r) => r.key).sort()).toEqual(["forever", "long"]);
    clock.advance(60);
    expect(await store.listNamespaces()).toEqual([["users", "1"]]);
    expect(await store.count()).toBe(1);
    expect((await store.get(["users", "1"], "forever"))?.value).toEqual({ text: "permanent note" });
  });

  it("refreshes the TTL on read by default", async () => {
    const { clock, store } = setup({ defaultTtl: 10, sweepIntervalMinutes: 0 });
    await store.put(["a"], "k", { text: "refreshed" });
    await store.put(["a"], "j", { text: "untouched" });
    for (let i = 0; i < 5; i++) {
      clock.advance(8);
      expect(await store.get(["a"], "k")).not.toBeNull();
    }
    expect(await store.get(["a"], "j")).toBeNull();
    clock.advance(8);
    expect((await store.search(["a"], { query: "refreshed" })).map((r) => r.key)).toEqual(["k"]);
    clock.advance(8);
    expect(await store.get(["a"], "k")).not.toBeNull();
  });

  it("sweepExpired deletes expired items now, returns how many, and survives reopen", async () => {
    const { clock, store, make } = setup({ defaultTtl: 5, refreshOnRead: false, sweepIntervalMinutes: 0 });
    for (let i = 0; i < 4; i++) await store.put(["s"], `old${i}`, { text: `old ${i}` });
    clock.advance(3);
    await store.put(["s"], "new", { text: "new" });
    clock.advance(3);
    expect(await store.sweepExpired()).toBe(4);
    expect(await store.sweepExpired()).toBe(0);
    expect((await store.stats()).items).toBe(1);
    await store.close();
    const again = make();
    expect((await again.stats()).items).toBe(1);
    clock.advance(3);
    expect(await again.get(["s"], "new")).toBeNull();
  });

  it("runs the background sweeper on an unref'd timer", async () => {
    const { clock, store } = setup({ defaultTtl: 1, refreshOnRead: false, sweepIntervalMinutes: 0.001 });
    await store.put(["b"], "k", { text: "x" });
    clock.advance(2);
    for (let i = 0; i < 50 && (await store.stats()).items > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await store.stats()).items).toBe(0);
  });

  it("rejects a bad TTL without writing", async () => {
    const { store } = setup({ sweepIntervalMinutes: 0 }, false);
    await expect(store.put(["b"], "k", { text: "x" }, undefined, { ttl: -1 })).rejects.toThrow(/ttl must be a positive number/);
    expect(await store.count()).toBe(0);
    expect(() => new HNSWStore({ ttl: { defaultTtl: 0 } })).toThrow(/ttl.defaultTtl/);
  });
});
