import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { VectorIndex, type HnswSettings } from "../../src/store/hnsw/vector-index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

const settings: HnswSettings = { space: "cosine", dims: 24, M: 8, efConstruction: 32, efSearch: 32, initialCapacity: 16, seed: 100 };

function vec(i: number): number[] {
  return Array.from({ length: 24 }, (_, d) => Math.sin(i * 7.1 + d * 1.3) + (d === i % 24 ? 2 : 0));
}
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

describe("bulk vector reads", () => {
  it("reads the vectors of a loaded index from its file, without hnswlib's getPoint, and never a changed one", async () => {
    const d = tempDir("vec-reads-");
    dirs.push(d);
    const file = `${d.dir}/v.hnsw`;
    const a = VectorIndex.create(settings);
    for (let i = 0; i < 50; i++) expect(a.add(vec(i))).toBe(i);
    a.remove(7);
    await a.write(file);
    const used = new Uint8Array(50).fill(1);
    used[7] = 0;
    // Before the graph is loaded: vectors come from the file; walking the graph is refused.
    const early = VectorIndex.load(file, settings);
    early.keepLabels(used);
    expect(early.loaded).toBe(false);
    expect(early.readsFromFile).toBe(true);
    const before = early.vectors([3, 49]);
    unit(vec(49)).forEach((x, k) => expect(before[1]![k]).toBeCloseTo(x, 6));
    expect(() => early.search(vec(3), 1)).toThrow(/still loading/);
    await early.whenLoaded();
    expect(early.loaded).toBe(true);
    expect(early.search(vec(3), 1)[0]!.label).toBe(3);
    expect(early.search(vec(7), 50).map((h) => h.label)).not.toContain(7);

    const b = VectorIndex.load(file, settings);
    b.keepLabels(used);
    await b.whenLoaded();
    // Count hnswlib getPoint calls through a proxy of the index.
    const holder = b as unknown as { graph: object };
    const inner = holder.graph as Record<string | symbol, unknown>;
    let pointReads = 0;
    holder.graph = new Proxy(inner, {
      get(target, prop) {
        const v = target[prop];
        if (prop === "getPoint") pointReads++;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const labels = [3, 0, 49, 12, 25];
    const got = b.vectors(labels);
    labels.forEach((l, j) => unit(vec(l)).forEach((x, k) => expect(got[j]![k]).toBeCloseTo(x, 6)));
    expect(pointReads).toBe(0);
    // A label re-used after the load is not read from the (stale) file.
    expect(b.add(vec(1000))).toBe(7);
    b.remove(12);
    expect(b.add(vec(2000))).toBe(12);
    const [v7, v12] = b.vectors([7, 12]);
    unit(vec(1000)).forEach((x, k) => expect(v7![k]).toBeCloseTo(x, 6));
    unit(vec(2000)).forEach((x, k) => expect(v12![k]).toBeCloseTo(x, 6));
  });

  it("a reopened store scores an exact scan exactly as before, and after re-puts and compaction", async () => {
    const d = tempDir("vec-reads-store-");
    dirs.push(d);
    const make = () =>
      new HNSWStore({ path: d.dir, index: { dims: 32, embeddings: new FakeEmbeddings({ dims: 32 }), fields: ["text"] }, retrieval: "vector", embeddingCache: false });
    const words = ["red", "green", "blue", "cyan", "pink", "gold", "grey", "teal"];
    let store = make();
    for (let i = 0; i < 60; i++) await store.put(["u", `${i % 2}`], `k${i}`, { text: `${words[i % 8]} ${words[(i * 3) % 8]} ${i}` });
    const before = await store.search(["u", "1"], { query: "red blue", limit: 30 });
    await store.close();
    store = make();
    const after = await store.search(["u", "1"], { query: "red blue", limit: 30 });
    expect(after.map((r) => r.key)).toEqual(before.map((r) => r.key));
    after.forEach((r, i) => expect(r.score).toBeCloseTo(before[i].score!, 6));
    await store.put(["u", "1"], "k1", { text: "red blue" });
    await store.compact();
    await store.put(["u", "1"], "k3", { text: "blue red red" });
    const top = await store.search(["u", "1"], { query: "red blue", limit: 2 });
    expect(top[0].key).toBe("k1");
    expect(top[0].score).toBeCloseTo(1, 6);
    await store.close();
  });
});

describe("VectorIndex.knn", () => {
  it("answers as search does: the same labels in the same order, each score 1 - its distance, removed labels and the filter honoured", () => {
    const index = VectorIndex.create(settings);
    for (let i = 0; i < 60; i++) index.add(vec(i));
    index.remove(3);
    index.remove(17);
    for (const accept of [undefined, (label: number) => label % 2 === 0]) {
      for (const q of [0, 5, 11, 40]) {
        const query = unit(vec(q));
        const { neighbors, distances } = index.knn(query, 20, accept);
        const hits = index.search(query, 20, accept);
        expect(neighbors).toEqual(hits.map((h) => h.label));
        expect(distances.map((d) => 1 - d)).toEqual(hits.map((h) => h.score));
        expect(neighbors).not.toContain(3);
        expect(neighbors).not.toContain(17);
        if (accept) expect(neighbors.every(accept)).toBe(true);
        // Best first, as annSearch reads it without sorting.
        for (let i = 1; i < distances.length; i++) expect(distances[i]).toBeGreaterThanOrEqual(distances[i - 1]!);
      }
    }
  });
});
