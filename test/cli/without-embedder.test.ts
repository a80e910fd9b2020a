/**
 * HNSWStore's `withoutEmbedder` option (what the CLI opens directories
 * with): reads, keyword search, deletes and unindexed puts work and keep the
 * stored vectors; a put that needs new vectors names the expected embedder;
 * reindex switches to a new one. FakeEmbeddings is a TEST DOUBLE.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbedderRequiredError, IncompatibleStoreError } from "../../src/errors.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { readManifest } from "../../src/store/hnsw/snapshot.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("HNSWStore withoutEmbedder", () => {
  let tmp: { dir: string; cleanup: () => void };
  beforeEach(async () => {
    tmp = tempDir("without-embedder-");
    const store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
    await store.put(["users", "1"], "a", { text: "likes green tea" });
    await store.put(["users", "1"], "b", { text: "lives in Berlin" });
    await store.close();
  });
  afterEach(() => tmp.cleanup());

  it("a plain open without index still fails; withoutEmbedder reads, keyword-searches, deletes and keeps the vectors", async () => {
    await expect(new HNSWStore({ path: tmp.dir }).open()).rejects.toThrow(IncompatibleStoreError);
    const store = new HNSWStore({ path: tmp.dir, withoutEmbedder: true });
    expect((await store.get(["users", "1"], "a"))?.value).toEqual({ text: "likes green tea" });
    expect((await store.search(["users"], { query: "berlin" }))[0].key).toBe("b");
    await store.delete(["users", "1"], "a");
    await store.put(["users", "1"], "raw", { text: "not embedded" }, false);
    expect((await store.stats()).vectors).toBe(1);
    await store.close();
    expect(readManifest(tmp.dir)?.index?.embedder).toBe("FakeEmbeddings:fake-bag-of-words-16");
    const again = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
    const hits = await again.search(["users"], { query: "lives in berlin" });
    expect(hits[0].key).toBe("b");
    expect(hits[0].score).toBeGreaterThan(0.9);
    expect(await again.get(["users", "1"], "a")).toBeNull();
    await again.close();
  });

  it("a put of indexed text throws EmbedderRequiredError naming the directory's embedder, and writes nothing", async () => {
    const store = new HNSWStore({ path: tmp.dir, withoutEmbedder: true });
    const err = await store.put(["users", "1"], "c", { text: "new fact" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbedderRequiredError);
    expect((err as EmbedderRequiredError).embedder).toBe("FakeEmbeddings:fake-bag-of-words-16");
    expect((err as Error).message).toMatch(/needs new vectors from FakeEmbeddings:fake-bag-of-words-16 \(16 dims\)/);
    expect(await store.get(["users", "1"], "c")).toBeNull();
    // A value without text at the indexed fields needs no vector.
    await store.put(["users", "1"], "d", { other: 1 });
    await store.reindex({ index: { dims: 8, embeddings: new FakeEmbeddings({ dims: 8, model: "other" }), fields: ["text"] } });
    await store.put(["users", "1"], "c", { text: "new fact" });
    await store.close();
    expect(readManifest(tmp.dir)?.index).toMatchObject({ embedder: "FakeEmbeddings:other", dims: 8 });
  });
});
