import { afterAll, beforeAll, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { withRanking } from "../../src/embeddings/ranking-defaults.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { describeWithVectors, poolForFile, realStore } from "./real-server.js";

/**
 * HNSWStore and PostgresMemoryStore (real server) rank one user's facts
 * alike under the facts-path defaults: a replaced fact never ahead of its
 * replacement (value.supersedes). Both embed with the FakeEmbeddings TEST
 * DOUBLE (bag of words).
 */
const server = poolForFile(2);
const DIMS = 64;
const NS = ["memories", "ana"];
const FACTS: Array<[string, Record<string, unknown>]> = [
  ["f1", { text: "Ana lives in Lisbon near the river", source: "extractor" }],
  ["f2", { text: "Drinks oat milk flat whites", source: "extractor" }],
  ["f3", { text: "Allergic to peanuts and carries an EpiPen", source: "extractor" }],
  ["f4", { text: "Works night shifts as a nurse", source: "extractor" }],
  ["f5", { text: "Moved to Berlin in 2024", source: "extractor", supersedes: "f1" }],
  ["f6", { text: "Sister Rita lives in Porto", source: "extractor" }],
  ["f7", { text: "Switched to day shifts in 2025", source: "extractor", supersedes: "f4" }],
  ["f8", { text: "Drinks oat milk lattes now", source: "extractor", supersedes: "f2" }],
];
const QUERIES = ["where does Ana live? lives", "what shifts does Ana work", "what does Maya drink? oat milk", "Rita sister", "peanuts food", "Berlin"];

describeWithVectors("ranking parity: HNSWStore and PostgresMemoryStore", () => {
  const hnsw = new HNSWStore({ index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }), fields: ["text"] }, embeddingCache: false });
  let pg: ReturnType<typeof realStore>;
  beforeAll(async () => {
    pg = realStore(server.pool, { dims: DIMS, fields: ["text"] });
    for (const [key, value] of FACTS) {
      await hnsw.put(NS, key, value);
      await pg.store.put(NS, key, value);
    }
  });
  afterAll(async () => {
    await hnsw.close();
    await pg?.cleanup();
  });

  for (const retrieval of ["hybrid", "vector"] as const) {
    it(`${retrieval}: the same keys in the same order, and replacements ahead of what they replaced`, async () => {
      for (const query of QUERIES) {
        const a = await hnsw.search(NS, { query, limit: 8, retrieval });
        const b = await pg.store.search(NS, { query, limit: 8, retrieval });
        expect(b.map((i) => i.key), query).toEqual(a.map((i) => i.key));
        for (let i = 0; i < a.length; i++) expect(b[i]!.score!, query).toBeCloseTo(a[i]!.score!, 5);
        const at = (key: string) => a.findIndex((i) => i.key === key);
        for (const [newer, older] of [["f5", "f1"], ["f7", "f4"], ["f8", "f2"]]) expect(at(newer), query).toBeLessThan(at(older));
      }
    });
  }

  it("both stores fuse with the ranking defaults' fusion options: with no keyword weight, hybrid ranks as the vector side alone", async () => {
    const keys = async (store: typeof hnsw | typeof pg.store, query: string, retrieval?: "vector") => (await store.search(NS, { query, limit: 8, retrieval })).map((i) => i.key);
    let differ = 0;
    for (const query of QUERIES) if ((await keys(hnsw, query)).join() !== (await keys(hnsw, query, "vector")).join()) differ++;
    // With the shipped fusion the keyword side moves some of these queries' pages.
    expect(differ).toBeGreaterThan(0);
    await withRanking({ fusion: { keywordWeight: 0, signalBoost: 0 } }, async () => {
      for (const query of QUERIES) {
        const vector = await keys(hnsw, query, "vector");
        expect(await keys(hnsw, query), query).toEqual(vector);
        expect(await keys(pg.store, query), query).toEqual(vector);
      }
    });
  });

  it("without the defaults' replacement rule both stores still agree (the rule is what orders the pairs)", async () => {
    await withRanking({ superseded: "off" }, async () => {
      let outOfOrder = 0;
      for (const query of QUERIES) {
        const a = (await hnsw.search(NS, { query, limit: 8 })).map((i) => i.key);
        const b = (await pg.store.search(NS, { query, limit: 8 })).map((i) => i.key);
        expect(b, query).toEqual(a);
        if (a.indexOf("f1") < a.indexOf("f5")) outOfOrder++;
      }
      expect(outOfOrder).toBeGreaterThan(0);
    });
  });
});
