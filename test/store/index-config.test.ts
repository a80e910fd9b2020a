import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIEmbeddings } from "@langchain/openai";
import {
  CachedEmbeddings,
  HNSWStore,
  IncompatibleStoreError,
  InvalidArgumentError,
  MissingPeerDependencyError,
  resolveEmbeddings,
} from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dir(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

function manifest(d: string): { index: { embedder: string; M: number; efConstruction: number; efSearch: number } } {
  return JSON.parse(fs.readFileSync(path.join(d, "store.json"), "utf8"));
}

/** TEST DOUBLE (via FakeEmbeddings): a plain object, not an instance of any Embeddings class (the dual-package case). */
function plainEmbedder(fake: FakeEmbeddings) {
  return {
    model: "plain-bow",
    embedDocuments: (texts: string[]) => Promise.resolve(texts.map((t) => fake.embedText(t))),
    embedQuery: (text: string) => Promise.resolve(fake.embedText(text)),
  };
}

const facts = [
  { key: "tea", value: { text: "likes green tea in the morning" } },
  { key: "bike", value: { text: "rides a bike to work" } },
];

async function fill(store: HNSWStore) {
  for (const f of facts) await store.put(["u"], f.key, f.value);
}

describe("embedders the store accepts", () => {
  it("a plain object with embedDocuments/embedQuery (not instanceof Embeddings)", async () => {
    const fake = new FakeEmbeddings({ dims: 32 });
    const store = new HNSWStore({ index: { dims: 32, embeddings: plainEmbedder(fake) }, retrieval: "vector" });
    cleanups.push(() => store.close());
    await fill(store);
    const [top] = await store.search(["u"], { query: "green tea" });
    expect(top!.key).toBe("tea");
    expect(top!.score).toBeGreaterThan(0.3);
  });

  it("`embed` as an alias, given as a function (texts) => Promise<number[][]>, with its identity recorded", async () => {
    const fake = new FakeEmbeddings({ dims: 32 });
    const calls: string[][] = [];
    const embed = async function bagOfWords(texts: string[]) {
      calls.push(texts);
      return texts.map((t) => fake.embedText(t));
    };
    const d = dir();
    const store = new HNSWStore({ path: d, index: { dims: 32, embed }, retrieval: "vector", embeddingCache: false });
    await fill(store);
    const [top] = await store.search(["u"], { query: "a bike" });
    expect(top!.key).toBe("bike");
    expect(calls).toContainEqual(["a bike"]);
    await store.close();
    expect(manifest(d).index.embedder).toBe("function:bagOfWords");
  });

  it("`embed` as an object, the same as `embeddings`; both differing is refused", () => {
    const fake = new FakeEmbeddings({ dims: 8 });
    expect(() => new HNSWStore({ index: { dims: 8, embed: fake } })).not.toThrow();
    expect(() => new HNSWStore({ index: { dims: 8, embed: fake, embeddings: new FakeEmbeddings({ dims: 8 }) } })).toThrow(InvalidArgumentError);
  });

  it("refuses what is not an embedder, by name", () => {
    expect(() => new HNSWStore({ index: { dims: 8 } })).toThrow(/index\.embeddings \(or index\.embed\) is required/);
    expect(() => new HNSWStore({ index: { dims: 8, embeddings: { embedQuery: () => Promise.resolve([]) } as never } })).toThrow(InvalidArgumentError);
    expect(() => new HNSWStore({ index: { dims: 8, embeddings: 42 as never } })).toThrow(InvalidArgumentError);
  });

  it('"openai:<model>" is resolved through @langchain/openai when the store opens (constructed, never called)', async () => {
    const e = await resolveEmbeddings("openai:text-embedding-3-small");
    expect(e).toBeInstanceOf(OpenAIEmbeddings);
    expect((e as OpenAIEmbeddings).model).toBe("text-embedding-3-small");
    const d = dir();
    const store = new HNSWStore({ path: d, index: { dims: 1536, embed: "openai:text-embedding-3-small" } });
    await store.put(["u"], "raw", { text: "not embedded" }, false);
    expect((await store.get(["u"], "raw"))!.value).toEqual({ text: "not embedded" });
    await store.close();
    expect(manifest(d).index.embedder).toBe("OpenAIEmbeddings:text-embedding-3-small");
  });

  it("a provider string fails by name when its package is missing or the provider is unknown", async () => {
    const missing = () => Promise.reject(Object.assign(new Error("Cannot find package '@langchain/openai'"), { code: "ERR_MODULE_NOT_FOUND" }));
    const err = await resolveEmbeddings("openai:text-embedding-3-small", { importModule: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingPeerDependencyError);
    expect(String((err as Error).message)).toMatch(/npm install @langchain\/openai/);
    await expect(resolveEmbeddings("nosuch:model")).rejects.toThrow(InvalidArgumentError);
    await expect(resolveEmbeddings("openai:")).rejects.toThrow(InvalidArgumentError);
    const store = new HNSWStore({ index: { dims: 8, embed: "nosuch:model" } });
    await expect(store.open()).rejects.toThrow(/known provider/);
  });

  it("CachedEmbeddings wraps a plain object or a function, keyed by the inner identity", async () => {
    const fake = new FakeEmbeddings({ dims: 8 });
    const plain = new CachedEmbeddings({ embeddings: plainEmbedder(fake) });
    expect(plain.embedderIdentity()).toBe("Object:plain-bow");
    expect(await plain.embedQuery("tea")).toEqual(Array.from(Float32Array.from(fake.embedText("tea"))));
    let n = 0;
    const fn = new CachedEmbeddings({
      embeddings: async (texts: string[]) => {
        n += texts.length;
        return texts.map((t) => fake.embedText(t));
      },
    });
    await fn.embedDocuments(["a", "b"]);
    await fn.embedDocuments(["a", "b"]);
    expect(n).toBe(2);
    expect(() => new CachedEmbeddings({ embeddings: "openai:x" as never })).toThrow(InvalidArgumentError);
  });
});

describe("index.hnsw (PostgresStore names)", () => {
  it("m, efConstruction and ef are aliases of hnsw.M, efConstruction and efSearch, recorded in the directory", async () => {
    const d = dir();
    const fake = new FakeEmbeddings({ dims: 8 });
    const store = new HNSWStore({ path: d, index: { dims: 8, embeddings: fake, hnsw: { m: 8, efConstruction: 64, ef: 32 } } });
    await store.put(["u"], "a", { text: "x" });
    expect((await store.stats()).efSearch).toBe(32);
    await store.close();
    expect(manifest(d).index).toMatchObject({ M: 8, efConstruction: 64, efSearch: 32 });
  });

  it("the store's own hnsw option wins; bad numbers are refused by name", async () => {
    const fake = new FakeEmbeddings({ dims: 8 });
    const store = new HNSWStore({ index: { dims: 8, embeddings: fake, hnsw: { ef: 32 } }, hnsw: { efSearch: 50 } });
    cleanups.push(() => store.close());
    await store.put(["u"], "a", { text: "x" });
    expect((await store.stats()).efSearch).toBe(50);
    expect(() => new HNSWStore({ index: { dims: 8, embeddings: fake, hnsw: { m: 0 } } })).toThrow(/index\.hnsw\.m must be a positive integer/);
  });
});

describe("index.fields on reopen", () => {
  it("changed fields are refused like dims, pointing to reindex(); the same fields, no fields (the recorded ones) or reindex open fine", async () => {
    const d = dir();
    const fake = new FakeEmbeddings({ dims: 8 });
    const first = new HNSWStore({ path: d, index: { dims: 8, embeddings: fake, fields: ["text"] } });
    await first.put(["u"], "a", { text: "green tea", note: "x" });
    await first.close();
    const changed = new HNSWStore({ path: d, index: { dims: 8, embeddings: fake, fields: ["note"] } });
    const err = await changed.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    expect((err as Error).message).toMatch(/\["text"\].*\["note"\].*reindex/);
    await changed.close();
    // No fields given: the directory's recorded ones, not ["$"] (one default, whoever created it).
    const defaulted = new HNSWStore({ path: d, index: { dims: 8, embeddings: fake } });
    expect((await defaulted.get(["u"], "a"))!.value).toMatchObject({ text: "green tea" });
    await defaulted.close();
    const same = new HNSWStore({ path: d, index: { dims: 8, embeddings: fake, fields: ["text"] } });
    expect((await same.get(["u"], "a"))!.value).toMatchObject({ text: "green tea" });
    await same.reindex({ index: { dims: 8, embeddings: fake, fields: ["note"] } });
    await same.close();
    const after = new HNSWStore({ path: d, index: { dims: 8, embeddings: fake, fields: ["note"] } });
    cleanups.push(() => after.close());
    expect(await after.get(["u"], "a")).not.toBeNull();
  });
});
