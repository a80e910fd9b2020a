import { Embeddings } from "@langchain/core/embeddings";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { tempDir } from "../helpers/temp-dir.js";

/** TEST DOUBLE: a 4-dim hash embedder, cheap enough to index a million items. */
class TinyEmbeddings extends Embeddings {
  readonly model = "tiny-hash-4";
  constructor() {
    super({});
  }
  vector(text: string): number[] {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    const a = (h >>> 0) / 2 ** 32;
    return [Math.cos(a * 6.283), Math.sin(a * 6.283), Math.cos(a * 97.1), Math.sin(a * 31.7)];
  }
  async embedDocuments(texts: string[]) {
    return texts.map((t) => this.vector(t));
  }
  async embedQuery(text: string) {
    return this.vector(text);
  }
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("scale", () => {
  it("holds 1,000,000 items: capacity grows, deleted labels are reused, and the directory reopens", { timeout: 600_000 }, async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const N = 1_000_000;
    const config = () =>
      new HNSWStore({
        path: t.dir,
        index: { dims: 4, embeddings: new TinyEmbeddings(), fields: ["t"] },
        hnsw: { M: 4, efConstruction: 16, initialCapacity: 1024 },
        embeddingCache: false,
        durability: "process",
        retrieval: "vector",
      });
    const store = config();
    cleanups.push(() => store.close());
    const batch = (from: number, to: number, value: (i: number) => Record<string, unknown> | null) =>
      store.batch(Array.from({ length: to - from }, (_, j) => ({ namespace: ["users", String((from + j) % 1000)], key: `k${from + j}`, value: value(from + j) })));
    for (let i = 0; i < N; i += 20_000) await batch(i, i + 20_000, (k) => ({ t: `memory ${k}` }));
    let stats = await store.stats();
    expect(stats.items).toBe(N);
    expect(stats.vectors).toBe(N);
    expect(stats.capacity).toBeGreaterThanOrEqual(N);
    const capacity = stats.capacity;

    // Delete 100k, then add 100k new ones: they take the freed labels.
    for (let i = 0; i < 100_000; i += 20_000) await batch(i, i + 20_000, () => null);
    expect((await store.stats()).deletedLabels).toBe(100_000);
    for (let i = N; i < N + 100_000; i += 20_000) await batch(i, i + 20_000, (k) => ({ t: `memory ${k}` }));
    stats = await store.stats();
    expect(stats.deletedLabels).toBe(0);
    expect(stats.capacity).toBe(capacity);
    expect(stats.vectors).toBe(N);

    const target = 1_050_123;
    const inUser = await store.search(["users", String(target % 1000)], { query: `memory ${target}`, limit: 1 });
    expect(inUser[0].key).toBe(`k${target}`);
    await store.close();

    const reopened = config();
    cleanups.push(() => reopened.close());
    expect(await reopened.count()).toBe(N);
    expect(await reopened.get(["users", "5"], "k5")).toBeNull();
    expect((await reopened.get(["users", String(target % 1000)], `k${target}`))?.value).toEqual({ t: `memory ${target}` });
    const again = await reopened.search(["users", String(target % 1000)], { query: `memory ${target}`, limit: 1 });
    expect(again[0].key).toBe(`k${target}`);
  });
});
