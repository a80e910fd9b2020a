/**
 * What a read-only batch of searches does while its query is embedded, and
 * what its searches share: the keyword sides are ranked BEFORE the query's
 * embedding comes back (the event loop is free while the embedder works),
 * two searches of one batch with the same query, prefix and filter (a hybrid
 * and a vector-only ranking, as searchEpisodes sends) walk the HNSW graph
 * once, and none of it changes a result: each search returns what it returns
 * alone in a batch of its own. Real HNSWStore in a temp directory, with a low
 * `exactScanThreshold` so that searches walk the graph; FakeEmbeddings is a
 * TEST DOUBLE (bag of words), here with a gate that holds query embeddings.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SearchItem } from "@langchain/langgraph-checkpoint";
import { KeywordIndex } from "../../src/embeddings/keyword-index.js";
import { InvalidArgumentError } from "../../src/errors.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { yieldToLoop } from "../../src/time-slice.js";
import { VectorIndex } from "../../src/store/hnsw/vector-index.js";
import type { MemorySearchOperation } from "../../src/store/operations.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

/** FakeEmbeddings whose query embeddings wait for `release()` (a slow embedder, as a worker thread is). */
class GatedEmbeddings extends FakeEmbeddings {
  private gates: Array<() => void> = [];
  gated = false;
  override async embedQuery(text: string): Promise<number[]> {
    if (this.gated) await new Promise<void>((resolve) => this.gates.push(resolve));
    return super.embedQuery(text);
  }
  get waiting(): number {
    return this.gates.length;
  }
  release(): void {
    for (const g of this.gates.splice(0)) g();
  }
}

const dirs: string[] = [];
const stores: HNSWStore[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const TOPICS = ["pottery class", "whale watching", "new job", "marathon training", "beagle puppy", "Lisbon trip"];

async function seeded() {
  const dir = await mkdtemp(join(tmpdir(), "batch-overlap-"));
  dirs.push(dir);
  const embeddings = new GatedEmbeddings({ dims: 24 });
  const store = new HNSWStore({ path: dir, index: { dims: 24, embeddings, fields: ["text"] }, embeddingCache: false, hnsw: { exactScanThreshold: 10 } });
  stores.push(store);
  for (const user of ["a", "b"]) {
    await store.batch(
      Array.from({ length: 60 }, (_, i) => ({
        namespace: ["turns", user],
        key: `k${i}`,
        value: { text: `${user === "a" ? "Ana" : "Ben"} talked about the ${TOPICS[i % TOPICS.length]} (turn ${i}, ${i % 3 === 0 ? "yesterday" : "last week"})` },
        index: ["text"],
      })),
    );
  }
  return { store, embeddings };
}

const search = (prefix: string[], query: string, extra: Partial<MemorySearchOperation> = {}): MemorySearchOperation => ({ namespacePrefix: prefix, query, limit: 12, offset: 0, ...extra });
const shown = (hits: SearchItem[]) => hits.map((h) => [h.key, h.score]);

describe("a read-only batch while its query is embedded", () => {
  it("ranks the keyword sides before the embedding returns, then the vector sides; results as if run alone", async () => {
    const { store, embeddings } = await seeded();
    const ops = [search(["turns", "a"], "how is the marathon training going?"), search(["turns", "a"], "how is the marathon training going?", { retrieval: "vector" }), search(["turns", "b"], "whale watching", { filter: { text: { $ne: "x" } } })];
    const alone: SearchItem[][] = [];
    for (const op of ops) alone.push(((await store.batch([op])) as SearchItem[][])[0]!);

    const keyword = vi.spyOn(KeywordIndex.prototype, "search");
    embeddings.gated = true;
    const running = store.batch(ops);
    try {
      await vi.waitFor(() => expect(embeddings.waiting).toBe(1));
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Both hybrid searches have ranked their keywords; the vector-only one has none to rank.
      expect(keyword).toHaveBeenCalledTimes(2);
    } finally {
      embeddings.gated = false;
      embeddings.release();
    }
    const together = (await running) as SearchItem[][];
    expect(keyword).toHaveBeenCalledTimes(2);
    expect(together.map(shown)).toEqual(alone.map(shown));
    expect(together[0]!.length).toBe(12);
  });

  it("a query embedded at once (nothing to overlap) costs no extra turn of the event loop; keywords ranked once, results as if run ahead", async () => {
    const { store, embeddings } = await seeded();
    const ops = [search(["turns", "a"], "how is the marathon training going?"), search(["turns", "b"], "whale watching", { retrieval: "vector" })];
    // Ranked ahead: the keyword side while a (gated) embedding is pending.
    embeddings.gated = true;
    const ahead = store.batch(ops);
    await vi.waitFor(() => expect(embeddings.waiting).toBe(1));
    embeddings.gated = false;
    embeddings.release();
    const rankedAhead = (await ahead) as SearchItem[][];

    const keyword = vi.spyOn(KeywordIndex.prototype, "search");
    // A fresh slice of the loop (so the batch's own time slicer is not due), then a macrotask queued
    // behind it: a batch that waited for a turn of the loop would let it run first.
    await yieldToLoop();
    let turned = false;
    setImmediate(() => (turned = true));
    const atOnce = (await store.batch(ops)) as SearchItem[][];
    expect(turned).toBe(false);
    expect(keyword).toHaveBeenCalledTimes(1);
    expect(atOnce.map(shown)).toEqual(rankedAhead.map(shown));
  });

  it("a hybrid and a vector-only search of one query walk the graph once; another prefix walks again", async () => {
    const { store } = await seeded();
    const q = "tell me about the beagle puppy";
    const alone = [((await store.batch([search(["turns", "a"], q)])) as SearchItem[][])[0]!, ((await store.batch([search(["turns", "a"], q, { retrieval: "vector" })])) as SearchItem[][])[0]!];
    const walks = vi.spyOn(VectorIndex.prototype, "knn");
    const [hybrid, vector, other] = (await store.batch([search(["turns", "a"], q), search(["turns", "a"], q, { retrieval: "vector" }), search(["turns", "b"], q)])) as SearchItem[][];
    expect(walks).toHaveBeenCalledTimes(2);
    expect([hybrid, vector].map(shown)).toEqual(alone.map(shown));
    expect(other!.every((h) => h.namespace[1] === "b")).toBe(true);
  });

  it("a write between two searches of one batch is seen by the second (no walk is shared across it)", async () => {
    const { store } = await seeded();
    const q = "the pottery class";
    const [before, , after] = (await store.batch([
      search(["turns", "a"], q, { retrieval: "vector" }),
      { namespace: ["turns", "a"], key: "new", value: { text: "the pottery class pottery class" }, index: ["text"] },
      search(["turns", "a"], q, { retrieval: "vector" }),
    ])) as unknown as [SearchItem[], undefined, SearchItem[]];
    expect(before.some((h) => h.key === "new")).toBe(false);
    expect(after[0]!.key).toBe("new");
  });

  it("a query whose embedding fails is ranked by keywords, as before", async () => {
    const { store, embeddings } = await seeded();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    embeddings.failWhen = (t) => t.startsWith("QUERY");
    const q = "QUERY whale watching";
    const [vector, hybrid, keyword] = (await store.batch([search(["turns", "a"], q, { retrieval: "vector" }), search(["turns", "a"], q), search(["turns", "a"], q, { retrieval: "keyword" })])) as SearchItem[][];
    expect(warn).toHaveBeenCalledTimes(1);
    expect(keyword!.slice(0, 10).every((h) => /whale watching/.test(String(h.value.text)))).toBe(true);
    expect(shown(vector!)).toEqual(shown(keyword!));
    expect(shown(hybrid!)).toEqual(shown(keyword!));
  });

  it("an invalid batch fails with its named error and leaves no rejection unhandled", async () => {
    const { store } = await seeded();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      await expect(store.batch([search(["turns", "a"], "whale"), search(["turns", "a"], "whale", { limit: -1 })])).rejects.toThrow(InvalidArgumentError);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
