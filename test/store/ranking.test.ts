import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { RANK_POOL } from "../../src/embeddings/fusion.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

// FakeEmbeddings is a TEST DOUBLE (bag of words): the ranking rules are under test, not meaning.
const stores: HNSWStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const WORDS = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "melon", "grape", "lemon", "mango", "peach"];

async function build(retrieval: "vector" | "keyword" | "hybrid", exactScanThreshold: number) {
  const store = new HNSWStore({
    index: { dims: 32, embeddings: new FakeEmbeddings({ dims: 32 }), fields: ["text"] },
    retrieval,
    embeddingCache: false,
    hnsw: { M: 8, efConstruction: 64, efSearch: 64, exactScanThreshold },
  });
  stores.push(store);
  const ops = [];
  for (let i = 0; i < 600; i++) {
    const text = `${WORDS[i % 12]} ${WORDS[(i * 5) % 12]} ${WORDS[(i * 7 + 3) % 12]} item ${i % 37}`;
    ops.push({ namespace: ["org", `u${i % 20}`], key: `k${i}`, value: { text, n: i } });
  }
  // A few unindexed items: they come last, unscored.
  for (let i = 0; i < 5; i++) ops.push({ namespace: ["org", "u0"], key: `plain${i}`, value: { text: "apple pear" }, index: false as const });
  await store.batch(ops);
  return store;
}

function expectMonotone(res: { score?: number }[]): void {
  const scores = res.map((r) => r.score);
  const n = scores.findIndex((s) => s === undefined);
  const scored = (n === -1 ? scores : scores.slice(0, n)) as number[];
  for (let i = 1; i < scored.length; i++) expect(scored[i - 1]).toBeGreaterThanOrEqual(scored[i]);
  if (n !== -1) expect(scores.slice(n).every((s) => s === undefined)).toBe(true);
}

describe("ranking: monotone scores and stable pages in every mode and plan", () => {
  for (const retrieval of ["vector", "keyword", "hybrid"] as const) {
    for (const [plan, threshold] of [["exact scan", 5000], ["HNSW walk", 10]] as const) {
      it(`${retrieval}, ${plan}`, async () => {
        const store = await build(retrieval, threshold);
        for (const query of ["apple pear", "fig kiwi item 3", "melon", "Mango 12"]) {
          for (const [prefix, filter] of [[["org"], undefined], [["org", "u3"], undefined], [["org"], { n: { $gte: 100 } }]] as const) {
            const depth = Math.min(RANK_POOL, 60);
            const full = await store.search([...prefix], { query, limit: depth, filter });
            expectMonotone(full);
            const keys = full.map((r) => r.key);
            for (const size of [4, 10, 25]) {
              const paged: string[] = [];
              for (let offset = 0; offset < depth; offset += size) {
                paged.push(...(await store.search([...prefix], { query, limit: Math.min(size, depth - offset), offset, filter })).map((r) => r.key));
              }
              expect(paged).toEqual(keys);
            }
          }
        }
      });
    }
  }

  it("hybrid scores never exceed the item's own cosine, so a floor keeps its meaning", async () => {
    const store = await build("hybrid", 5000);
    const vectorStore = await build("vector", 5000);
    for (const query of ["apple pear", "Mango 12", "kiwi item 3"]) {
      const cosine = new Map((await vectorStore.search(["org"], { query, limit: 700 })).map((r) => [r.key, r.score]));
      const hybrid = await store.search(["org"], { query, limit: 50 });
      for (const r of hybrid) if (r.score !== undefined) expect(r.score).toBeLessThanOrEqual(cosine.get(r.key)! + 1e-9);
      expect(hybrid[0].score).toBeCloseTo(cosine.get(hybrid[0].key)!, 9);
    }
  });

  it("treats a prefix that covers every item like the whole store", async () => {
    const store = await build("vector", 10);
    for (const query of ["apple pear", "melon grape"]) {
      const all = await store.search([], { query, limit: 10 });
      const covering = await store.search(["org"], { query, limit: 10 });
      expect(covering.map((r) => r.key)).toEqual(all.map((r) => r.key));
    }
    // Once another namespace exists, the prefix restricts again.
    await store.put(["other"], "x", { text: "apple pear" });
    expect((await store.search(["org"], { query: "apple pear", limit: 600 })).some((r) => r.key === "x")).toBe(false);
    expect((await store.search([], { query: "apple pear", limit: 3 }))[0].key).toBe("x");
  });

  it("finds groups under a prefix through the label tree as namespaces come and go", async () => {
    const store = new HNSWStore({ embeddingCache: false });
    stores.push(store);
    await store.put(["a", "b"], "1", { t: 1 });
    await store.put(["a", "b", "c"], "2", { t: 2 });
    await store.put(["a", "bc"], "3", { t: 3 });
    await store.put(["a"], "4", { t: 4 });
    const keys = async (p: string[]) => (await store.search(p, { limit: 50 })).map((r) => r.key).sort();
    expect(await keys(["a", "b"])).toEqual(["1", "2"]);
    expect(await store.count(["a"])).toBe(4);
    await store.delete(["a", "b"], "1");
    expect(await keys(["a", "b"])).toEqual(["2"]);
    await store.delete(["a", "b", "c"], "2");
    expect(await keys(["a", "b"])).toEqual([]);
    expect(await store.count(["a", "b"])).toBe(0);
    await store.put(["a", "b", "c"], "5", { t: 5 });
    expect(await keys(["a", "b"])).toEqual(["5"]);
    expect(await keys(["a"])).toEqual(["3", "4", "5"]);
    expect(await keys([])).toEqual(["3", "4", "5"]);
  });
});
