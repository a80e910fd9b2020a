import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { describeRefreshTtl } from "../conformance/refresh-ttl-contract.js";
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

describeRefreshTtl("HNSWStore (on disk)", async ({ refreshOnRead, clock }) => {
  const t = tempDir();
  const store = new HNSWStore({
    path: t.dir,
    index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] },
    ttl: { defaultTtl: 10, refreshOnRead, sweepIntervalMinutes: 0 },
    clock,
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      t.cleanup();
    },
  };
});

describe("per-call refreshTtl (PostgresStore's option) on HNSWStore", () => {
  it("a refresh by refreshTtl: true survives reopen", async () => {
    const { advance, store, make } = setup(false);
    await store.put(["a"], "g", { text: "coffee" });
    await store.put(["a"], "s", { text: "juice" });
    advance(6);
    await store.get(["a"], "g", { refreshTtl: true });
    await store.search(["a"], { query: "juice", filter: { text: "juice" }, refreshTtl: true });
    await store.close();
    const reopened = make();
    advance(9);
    expect(await reopened.get(["a"], "g")).not.toBeNull();
    expect(await reopened.get(["a"], "s")).not.toBeNull();
    advance(2);
    expect(await reopened.get(["a"], "g")).toBeNull();
  });
});
