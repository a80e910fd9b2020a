import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore, InvalidArgumentError, type HNSWGetOperation, type HNSWSearchOperation } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MIN = 60_000;

function setup(refreshOnRead: boolean) {
  let now = Date.UTC(2026, 0, 1);
  const t = tempDir();
  cleanups.push(t.cleanup);
  const make = () => {
    const store = new HNSWStore({
      path: t.dir,
      index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] },
      ttl: { defaultTtl: 10, refreshOnRead, sweepIntervalMinutes: 0 },
      clock: () => now,
    });
    cleanups.push(() => store.close());
    return store;
  };
  return { advance: (m: number) => (now += m * MIN), make, store: make() };
}

describe("per-call refreshTtl (PostgresStore's option)", () => {
  it("refreshTtl: false on get and search leaves the TTL running when the store refreshes on read", async () => {
    const { advance, store } = setup(true);
    await store.put(["a"], "k", { text: "tea" });
    advance(6);
    expect(await store.get(["a"], "k", { refreshTtl: false })).not.toBeNull();
    expect(await store.search(["a"], { query: "tea", refreshTtl: false })).toHaveLength(1);
    advance(6);
    expect(await store.get(["a"], "k")).toBeNull();
  });

  it("refreshTtl: true on get and on search restarts the TTL when the store does not, and survives reopen", async () => {
    const { advance, store, make } = setup(false);
    await store.put(["a"], "g", { text: "coffee" });
    await store.put(["a"], "s", { text: "juice" });
    advance(6);
    await store.get(["a"], "g", { refreshTtl: true });
    await store.search(["a"], { query: "juice", filter: { text: "juice" }, refreshTtl: true });
    advance(6);
    expect(await store.get(["a"], "g")).not.toBeNull();
    expect(await store.get(["a"], "s")).not.toBeNull();
    await store.close();
    const reopened = make();
    advance(3);
    expect(await reopened.get(["a"], "g")).not.toBeNull();
    expect(await reopened.get(["a"], "s")).not.toBeNull();
    advance(2);
    expect(await reopened.get(["a"], "g")).toBeNull();
  });

  it("per operation inside batch(); a non-boolean is refused by name", async () => {
    const { advance, store } = setup(true);
    await store.put(["a"], "x", { text: "x" });
    await store.put(["a"], "y", { text: "y" });
    advance(6);
    await store.batch([
      { namespace: ["a"], key: "x", refreshTtl: false } as HNSWGetOperation,
      { namespace: ["a"], key: "y", refreshTtl: true } as HNSWGetOperation,
      { namespacePrefix: ["b"], limit: 1, refreshTtl: false } as HNSWSearchOperation,
    ]);
    advance(6);
    expect(await store.get(["a"], "x")).toBeNull();
    expect(await store.get(["a"], "y")).not.toBeNull();
    await expect(store.get(["a"], "y", { refreshTtl: "yes" as never })).rejects.toThrow(InvalidArgumentError);
  });
});
