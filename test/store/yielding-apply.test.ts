import { describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { loopTicker } from "../helpers/settle.js";

// FakeEmbeddings is a TEST DOUBLE: it answers at once, so only the store's own work is on the event loop.
describe("a long batch yields to the event loop", () => {
  it("lets other tasks run while its HNSW inserts are applied, and applies every put in order", async () => {
    const store = new HNSWStore({ index: { dims: 32, embeddings: new FakeEmbeddings({ dims: 32 }), fields: ["text"] }, embeddingCache: false });
    try {
      await store.put(["warm"], "up", { text: "warm up" });
      const ops = Array.from({ length: 2500 }, (_, i) => ({ namespace: ["bulk"], key: `k${i % 2000}`, value: { text: `item ${i} word${i % 97}`, i } }));
      const ticker = loopTicker();
      await store.batch(ops);
      expect(ticker.stop()).toBeGreaterThan(1);
      expect(await store.count(["bulk"])).toBe(2000);
      // The later put of a key wins.
      expect((await store.get(["bulk"], "k10"))?.value.i).toBe(2010);
      expect((await store.search(["bulk"], { query: "item 2010 word70", limit: 1 }))[0].key).toBe("k10");
    } finally {
      await store.close();
    }
  });
});
