/**
 * PostgresMemoryStore (real server) ranks a facts search and an episodes
 * search of the same text with different adapted query vectors: the facts
 * adapter and the episodes adapter, as HNSWStore does
 * (test/embeddings/query-adapter-kinds.test.ts). The real bundled USE-lite
 * embedder, since the adapters apply to it only.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { MemorySearchOperation } from "../../src/store/operations.js";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { adaptQueryVector } from "../../src/embeddings/query-adapter.js";
import { describeWithVectors, poolForFile, realStore } from "./real-server.js";

vi.setConfig({ testTimeout: 120_000 });

const server = poolForFile(2);
const use = new UniversalSentenceEncoderEmbeddings();
const NS = ["memories", "u"];
const FACTS: Array<[string, string]> = [
  ["city", "User lives in Lisbon."],
  ["pet", "User has a cat named Miso."],
  ["diet", "User is vegetarian."],
];
const QUESTION = "which city is she in?";

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

const search = (queryAdapter: MemorySearchOperation["queryAdapter"]): MemorySearchOperation => ({
  namespacePrefix: NS,
  query: QUESTION,
  limit: 3,
  offset: 0,
  retrieval: "vector",
  queryAdapter,
});

describeWithVectors("query adapters per kind of memory: PostgresMemoryStore", () => {
  let pg: ReturnType<typeof realStore>;
  beforeAll(async () => {
    pg = realStore(server.pool, { store: { index: { dims: 512, embeddings: use, fields: ["text"] } } });
    for (const [key, text] of FACTS) await pg.store.put(NS, key, { text });
  });
  afterAll(async () => {
    await pg?.cleanup();
  });

  it("one batch: a facts and an episodes search of the same text score every item with its own kind's adapted vector", async () => {
    const [facts, episodes, plain] = await pg.store.batch([search("facts"), search("episodes"), search(false)]);
    const q = await use.embedQuery(QUESTION);
    const stored = new Map(FACTS.map(([key], i) => [key, i]));
    const vectors = await use.embedDocuments(FACTS.map(([, text]) => text));
    const expected = (vector: number[], key: string) => dot(vector, vectors[stored.get(key)!]!);
    const fq = adaptQueryVector(use, q, "facts");
    const eq = adaptQueryVector(use, q, "episodes");
    expect(facts).toHaveLength(3);
    expect(episodes).toHaveLength(3);
    for (const item of facts!) expect(item.score!, item.key).toBeCloseTo(expected(fq, item.key), 4);
    for (const item of episodes!) expect(item.score!, item.key).toBeCloseTo(expected(eq, item.key), 4);
    for (const item of plain!) expect(item.score!, item.key).toBeCloseTo(expected(q, item.key), 4);
    // Different vectors, so the same item scores differently in the two searches.
    const city = (items: typeof facts) => items!.find((i) => i.key === "city")!.score!;
    expect(Math.abs(city(facts) - city(episodes))).toBeGreaterThan(1e-3);
    // Either order in a batch gives each search its own vector; a search without a kind is a facts search.
    const [e2, f2, byDefault] = await pg.store.batch([search("episodes"), search("facts"), { ...search(true) }]);
    expect(city(e2)).toBeCloseTo(city(episodes), 6);
    expect(city(f2)).toBeCloseTo(city(facts), 6);
    expect(city(byDefault)).toBeCloseTo(city(facts), 6);
  });
});
