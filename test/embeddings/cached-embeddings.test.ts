import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddingError, IncompatibleStoreError, InvalidArgumentError, StoreClosedError } from "../../src/errors.js";
import { CachedEmbeddings } from "../../src/embeddings/cached-embeddings.js";
import { embedderIdentity } from "../../src/embeddings/identity.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "emb-cache-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const f32 = (v: number[]) => Array.from(Float32Array.from(v));

describe("embedderIdentity", () => {
  it("names the class and model, and a cache reports its inner embedder", () => {
    const fake = new FakeEmbeddings({ model: "bow-16" });
    expect(embedderIdentity(fake)).toBe("FakeEmbeddings:bow-16");
    expect(embedderIdentity(new CachedEmbeddings({ embeddings: fake }))).toBe("FakeEmbeddings:bow-16");
    const withDims = Object.assign(new FakeEmbeddings(), { model: "text-embedding-3-small", dimensions: 256 });
    expect(embedderIdentity(withDims)).toBe("FakeEmbeddings:text-embedding-3-small@256");
  });
});

describe("CachedEmbeddings", () => {
  it("never embeds the same text twice, within a call, across calls and across concurrent calls", async () => {
    const fake = new FakeEmbeddings();
    const cache = new CachedEmbeddings({ embeddings: fake });
    const first = await cache.embedDocuments(["tea", "coffee", "tea"]);
    expect(fake.documentCalls).toEqual([["tea", "coffee"]]);
    expect(first[0]).toEqual(first[2]);
    expect(first[1]).toEqual(f32(fake.embedText("coffee")));
    await Promise.all([cache.embedDocuments(["juice", "tea"]), cache.embedDocuments(["juice"])]);
    expect(fake.documentCalls).toEqual([["tea", "coffee"], ["juice"]]);
    expect(cache.stats).toEqual({ hits: 3, misses: 3 });
  });

  it("caches queries apart from documents (some models embed them differently)", async () => {
    const fake = new FakeEmbeddings();
    const cache = new CachedEmbeddings({ embeddings: fake });
    await cache.embedDocuments(["tea"]);
    const q1 = await cache.embedQuery("tea");
    const q2 = await cache.embedQuery("tea");
    expect(fake.queryCalls).toEqual(["tea"]);
    expect(q1).toEqual(q2);
  });

  it("persists across instances, so a restart embeds nothing again", async () => {
    const file = path.join(dir, "nested", "embedding-cache.jsonl");
    const fake1 = new FakeEmbeddings();
    const a = new CachedEmbeddings({ embeddings: fake1, file });
    const va = await a.embedDocuments(["alpha", "beta"]);
    const qa = await a.embedQuery("gamma");
    await a.close();

    const fake2 = new FakeEmbeddings();
    const b = new CachedEmbeddings({ embeddings: fake2, file });
    expect(await b.embedDocuments(["beta", "alpha"])).toEqual([va[1], va[0]]);
    expect(fake2.documentCalls).toEqual([]);
    // Query vectors are cached in memory only (no item owns them, so they
    // could never be purged from disk): a restart embeds the query again.
    expect(await b.embedQuery("gamma")).toEqual(qa);
    expect(fake2.queryCalls).toEqual(["gamma"]);
    expect(b.stats).toEqual({ hits: 2, misses: 1 });
    await b.close();
  });

  it("retainDocuments drops other vectors from memory and rewrites the file without them", async () => {
    const file = path.join(dir, "retain.jsonl");
    const fake = new FakeEmbeddings();
    const a = new CachedEmbeddings({ embeddings: fake, file });
    const [keep, drop] = await a.embedDocuments(["keep me", "drop me"]);
    await a.embedQuery("a question");
    await a.retainDocuments(["keep me"]);
    const onDisk = await fs.readFile(file, "utf8");
    const b64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString("base64");
    expect(onDisk).toContain(b64(keep));
    expect(onDisk).not.toContain(b64(drop));
    expect(onDisk).not.toContain(b64(fake.embedText("a question")));
    await a.embedDocuments(["later"]); // appends still work after the rewrite
    await a.close();
    expect(await fs.readFile(file, "utf8")).toContain(b64(fake.embedText("later")));
    const b = new CachedEmbeddings({ embeddings: fake, file });
    const calls = fake.documentCalls.length;
    await b.embedDocuments(["keep me", "later"]);
    expect(fake.documentCalls.length).toBe(calls);
    await b.embedDocuments(["drop me"]);
    expect(fake.documentCalls.at(-1)).toEqual(["drop me"]);
    await b.close();
  });

  it("does not share vectors between different embedders in one file", async () => {
    const file = path.join(dir, "cache.jsonl");
    const a = new CachedEmbeddings({ embeddings: new FakeEmbeddings({ model: "one" }), file });
    await a.embedDocuments(["alpha"]);
    await a.close();
    const other = new FakeEmbeddings({ model: "two" });
    const b = new CachedEmbeddings({ embeddings: other, file });
    await b.embedDocuments(["alpha"]);
    expect(other.documentCalls).toEqual([["alpha"]]);
    await b.close();
  });

  it("tolerates a torn last line and a corrupt line, and keeps appending cleanly", async () => {
    const file = path.join(dir, "cache.jsonl");
    const a = new CachedEmbeddings({ embeddings: new FakeEmbeddings(), file });
    await a.embedDocuments(["alpha", "beta"]);
    await a.close();
    const good = await fs.readFile(file, "utf8");
    const lines = good.trimEnd().split("\n");
    // Corrupt the "beta" line in place and tear a half-written line onto the end.
    await fs.writeFile(file, [lines[0], lines[1], "{not json", ""].join("\n") + lines[2]!.slice(0, 40));

    const fake = new FakeEmbeddings();
    const b = new CachedEmbeddings({ embeddings: fake, file });
    await b.embedDocuments(["alpha", "beta", "delta"]);
    expect(fake.documentCalls).toEqual([["beta", "delta"]]);
    await b.close();
    const text = await fs.readFile(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    for (const line of text.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();

    const fake3 = new FakeEmbeddings();
    const c = new CachedEmbeddings({ embeddings: fake3, file });
    await c.embedDocuments(["alpha", "beta", "delta"]);
    expect(fake3.documentCalls).toEqual([]);
    await c.close();
  });

  it("evicts least recently used entries beyond maxEntries and compacts an oversized file", async () => {
    const file = path.join(dir, "cache.jsonl");
    const a = new CachedEmbeddings({ embeddings: new FakeEmbeddings(), file, maxEntries: 2 });
    await a.embedDocuments(["a", "b", "c", "d", "e"]);
    expect(a.size).toBe(2);
    await a.close();
    expect((await fs.readFile(file, "utf8")).trimEnd().split("\n")).toHaveLength(6);
    const fake = new FakeEmbeddings();
    const b = new CachedEmbeddings({ embeddings: fake, file, maxEntries: 2 });
    await b.embedDocuments(["d", "e"]);
    expect(fake.documentCalls).toEqual([]);
    await b.close();
    expect((await fs.readFile(file, "utf8")).trimEnd().split("\n")).toHaveLength(3);
  });

  it("wraps embedder failures and bad vectors in EmbeddingError and caches nothing from them", async () => {
    const fake = new FakeEmbeddings();
    fake.failWhen = (t) => t === "boom";
    const cache = new CachedEmbeddings({ embeddings: fake });
    await expect(cache.embedDocuments(["ok", "boom"])).rejects.toThrow(EmbeddingError);
    expect(cache.size).toBe(0);
    fake.mangle = (v, t) => (t === "nan" ? v.map(() => Number.NaN) : v);
    await expect(cache.embedDocuments(["nan"])).rejects.toThrow(/non-finite/);
    fake.failWhen = undefined;
    expect(await cache.embedDocuments(["ok"])).toHaveLength(1);
  });

  it("rejects bad options and input with named errors, a foreign file, and use after close", async () => {
    expect(() => new CachedEmbeddings({ embeddings: {} as never })).toThrow(InvalidArgumentError);
    expect(() => new CachedEmbeddings({ embeddings: new FakeEmbeddings(), maxEntries: 0 })).toThrow(/maxEntries/);
    const cache = new CachedEmbeddings({ embeddings: new FakeEmbeddings() });
    await expect(cache.embedDocuments([1 as unknown as string])).rejects.toThrow(InvalidArgumentError);
    const foreign = path.join(dir, "other.jsonl");
    await fs.writeFile(foreign, '{"hello":1}\n');
    const bad = new CachedEmbeddings({ embeddings: new FakeEmbeddings(), file: foreign });
    await expect(bad.embedQuery("x")).rejects.toThrow(IncompatibleStoreError);
    expect(await fs.readFile(foreign, "utf8")).toBe('{"hello":1}\n');
    await cache.close();
    await expect(cache.embedQuery("x")).rejects.toThrow(StoreClosedError);
  });
});
