import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { RANKING, SHIPPED_RANKING, withRanking } from "../../src/embeddings/ranking-defaults.js";
import { supersededAfterReplacement } from "../../src/store/superseded.js";
import { recallMemories } from "../../src/graph/recall.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

// FakeEmbeddings is a TEST DOUBLE (bag of words): the ordering rule is under test, not meaning.
const stores: HNSWStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

type R = { id: string; replaces?: string };
const order = (ranked: R[]) => supersededAfterReplacement(ranked, (r) => r.id, (r) => r.replaces).map((r) => r.id);

describe("a replaced memory never outranks its replacement", () => {
  it("ships promoting replacements", () => {
    expect(SHIPPED_RANKING.superseded).toBe("promote");
    expect(RANKING.superseded).toBe("promote");
  });

  it("promote: the replacement takes the old memory's place, the old one right after it; the rest keep their order", async () => {
    const ranked: R[] = [{ id: "x" }, { id: "old" }, { id: "y" }, { id: "z" }, { id: "new", replaces: "old" }];
    await withRanking({ superseded: "promote" }, async () => expect(order(ranked)).toEqual(["x", "new", "old", "y", "z"]));
    await withRanking({ superseded: "demote" }, async () => expect(order(ranked)).toEqual(["x", "y", "z", "new", "old"]));
    await withRanking({ superseded: "off" }, async () => expect(order(ranked)).toEqual(["x", "old", "y", "z", "new"]));
  });

  it("follows chains, leaves pairs already in order and cycles alone", async () => {
    await withRanking({ superseded: "promote" }, async () => {
      expect(order([{ id: "a" }, { id: "q" }, { id: "b", replaces: "a" }, { id: "c", replaces: "b" }])).toEqual(["c", "b", "a", "q"]);
      expect(order([{ id: "new", replaces: "old" }, { id: "q" }, { id: "old" }])).toEqual(["new", "q", "old"]);
      expect(order([{ id: "a", replaces: "b" }, { id: "q" }, { id: "b", replaces: "a" }])).toHaveLength(3);
      expect(new Set(order([{ id: "a", replaces: "b" }, { id: "q" }, { id: "b", replaces: "a" }]))).toEqual(new Set(["a", "b", "q"]));
    });
    await withRanking({ superseded: "demote" }, async () => {
      expect(order([{ id: "a" }, { id: "q" }, { id: "b", replaces: "a" }, { id: "c", replaces: "b" }])).toEqual(["q", "c", "b", "a"]);
    });
  });

  async function livesStore() {
    const store = new HNSWStore({ index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] }, embeddingCache: false });
    stores.push(store);
    const ns = ["memories", "ana"];
    await store.put(ns, "old", { text: "Ana lives in Lisbon near the river", source: "extractor" });
    await store.put(ns, "tea", { text: "Drinks green tea every morning", source: "extractor" });
    await store.put(ns, "cat", { text: "Has a cat called Miso", source: "extractor" });
    await store.put(ns, "new", { text: "Moved to Berlin in 2024", source: "extractor", supersedes: "old" });
    // The same key named from another namespace replaces nothing here.
    await store.put(["memories", "bo"], "new", { text: "Bo lives in Oslo", source: "extractor", supersedes: "old" });
    return { store, ns };
  }

  it("HNSWStore: a search that finds the old fact shows its replacement first, then the old one; scores still never go up", async () => {
    const { store, ns } = await livesStore();
    const query = "where does Ana live? lives";
    const before = await withRanking({ superseded: "off" }, () => store.search(ns, { query, limit: 4 }));
    expect(before[0]!.key).toBe("old");
    expect(before.findIndex((i) => i.key === "new")).toBeGreaterThan(1);
    const after = await store.search(ns, { query, limit: 4 });
    expect(after.slice(0, 2).map((i) => i.key)).toEqual(["new", "old"]);
    for (let i = 1; i < after.length; i++) expect(after[i - 1]!.score!).toBeGreaterThanOrEqual(after[i]!.score!);
    // Vector mode ranks every item of a small scope: the replacement is pulled up there too.
    const vector = (await store.search(ns, { query, limit: 4, retrieval: "vector" })).map((i) => i.key);
    expect(vector.indexOf("new")).toBe(vector.indexOf("old") - 1);
    // Keyword mode ranks only what matches: a replacement no keyword finds is not pulled up (it follows, unscored).
    const keyword = await store.search(ns, { query, limit: 4, retrieval: "keyword" });
    expect(keyword[0]).toMatchObject({ key: "old" });
    expect(keyword.slice(1).every((i) => i.score === undefined)).toBe(true);
    // The promoted replacement is reported with the score that found the pair, so a floor keeps both (and what follows).
    expect(after[0]!.score).toBe(before[0]!.score);
    const preload = await recallMemories(store, ns, { query, limit: 2, scoreThreshold: 0.1, fillWithRecent: false });
    expect(preload.map((i) => i.key)).toEqual(["new", "old"]);
    // Another person's fact naming the same key changes nothing for them.
    expect((await store.search(["memories", "bo"], { query, limit: 2 })).map((i) => i.key)).toEqual(["new"]);
  });

  it("HNSWStore over an HNSW walk: a ranking where nothing names a replacement keeps its order and scores; one that does still promotes", async () => {
    const store = new HNSWStore({ index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] }, embeddingCache: false, hnsw: { exactScanThreshold: 2 } });
    stores.push(store);
    const ns = ["memories", "cy"];
    const topics = ["tea", "cats", "rivers", "trains", "chess", "bread"];
    for (let i = 0; i < 30; i++) await store.put(ns, `m${i}`, { text: `Cy likes ${topics[i % topics.length]} number ${i}` });
    const query = "does Cy like rivers?";
    const plain = await store.search(ns, { query, limit: 8 });
    const off = await withRanking({ superseded: "off" }, () => store.search(ns, { query, limit: 8 }));
    expect(plain).toEqual(off);
    // A replacement of the best hit, put where the walk still finds it, takes its place.
    await store.put(ns, "moved", { text: "Cy no longer likes trains", supersedes: off[0]!.key });
    const after = await store.search(ns, { query, limit: 40 });
    const at = after.findIndex((i) => i.key === off[0]!.key);
    expect(after[at - 1]!.key).toBe("moved");
    for (let i = 1; i < after.length; i++) expect(after[i - 1]!.score!).toBeGreaterThanOrEqual(after[i]!.score!);
  });
});
