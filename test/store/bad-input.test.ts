import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddingError, HNSWStore, InvalidNamespaceError, InvalidValueError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const embeddings = new FakeEmbeddings({ dims: 16 });
  const warnings: string[] = [];
  const store = new HNSWStore({
    path: t.dir,
    index: { dims: 16, embeddings, fields: ["text"] },
    embeddingCache: false,
    logger: { warn: (m: string) => warnings.push(m) },
  });
  cleanups.push(() => store.close());
  const walBytes = () => fs.readdirSync(t.dir).filter((f) => f.startsWith("wal-")).reduce((n, f) => n + fs.statSync(path.join(t.dir, f)).size, 0);
  return { store, embeddings, warnings, walBytes, dir: t.dir };
}

const good = { namespace: ["users", "1"], key: "ok", value: { text: "a good fact" } };

describe("bad input fails the whole batch and changes nothing", () => {
  it.each([
    ["an invalid namespace", { namespace: ["users", "a.b"], key: "k", value: { text: "x" } }, InvalidNamespaceError, /'a\.b' contains '\.'/],
    ["an array value", { namespace: ["users"], key: "k", value: ["x"] }, InvalidValueError, /plain JSON object, got an array/],
    ["a Date inside the value", { namespace: ["users"], key: "k", value: { when: new Date() } }, InvalidValueError, /value\.when is an instance of Date/],
    ["a NaN inside the value", { namespace: ["users"], key: "k", value: { n: NaN } }, InvalidValueError, /value\.n is NaN/],
    ["a class instance", { namespace: ["users"], key: "k", value: new (class Foo {})() }, InvalidValueError, /instance of Foo/],
    ["a function", { namespace: ["users"], key: "k", value: { f: () => 1 } }, InvalidValueError, /value\.f is a function/],
  ])("%s", async (_name, bad, ErrorClass, message) => {
    const { store, walBytes } = setup();
    await store.put(["users", "1"], "before", { text: "existing" });
    const wal = walBytes();
    const err = await store.batch([good, bad as never]).catch((e) => e);
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err.message).toMatch(message);
    expect(await store.get(["users", "1"], "ok")).toBeNull();
    expect(await store.count()).toBe(1);
    expect(walBytes()).toBe(wal);
  });

  it("an embedder that returns a vector of the wrong length", async () => {
    const { store, embeddings, walBytes } = setup();
    embeddings.mangle = (v, text) => (text.includes("broken") ? v.slice(0, 8) : v);
    await store.open(); // opening a new directory writes the log's header
    const wal = walBytes();
    const err = await store.batch([good, { namespace: ["u"], key: "b", value: { text: "broken one" } }]).catch((e) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect(err.message).toMatch(/8-dim vector for text "broken one"; index.dims is 16/);
    expect(await store.count()).toBe(0);
    expect(walBytes()).toBe(wal);
  });

  it("an embedder that returns NaN", async () => {
    const { store, embeddings } = setup();
    embeddings.mangle = (v, text) => (text.includes("broken") ? v.map((x, i) => (i === 3 ? NaN : x)) : v);
    const err = await store.batch([good, { namespace: ["u"], key: "b", value: { text: "broken one" } }]).catch((e) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect(err.message).toMatch(/NaN at position 3/);
    expect(await store.count()).toBe(0);
  });

  it("an embedder that throws", async () => {
    const { store, embeddings } = setup();
    await store.put(["users", "1"], "ok", { text: "original" });
    embeddings.failWhen = (t) => t.includes("boom");
    const err = await store.batch([{ ...good, value: { text: "replacement" } }, { namespace: ["u"], key: "b", value: { text: "boom" } }]).catch((e) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect(err.message).toMatch(/fake embedder failure/);
    expect((await store.get(["users", "1"], "ok"))?.value).toEqual({ text: "original" });
    const stats = await store.stats();
    expect(stats.vectors).toBe(1);
  });

  it("falls back to keyword ranking with a warning when the query embedding fails", async () => {
    const { store, embeddings, warnings } = setup();
    await store.put(["m"], "pen", { text: "Severe penicillin reaction in 2019" });
    await store.put(["m"], "veg", { text: "Vegetarian, eats fish sometimes" });
    embeddings.failWhen = (t) => t.startsWith("QUERY");
    const res = await store.search(["m"], { query: "QUERY penicillin" });
    expect(res[0].key).toBe("pen");
    expect(warnings.join("\n")).toMatch(/embedding the search query failed.*ranking by keywords/);
  });

  it("rejects bad search arguments", async () => {
    const { store } = setup();
    await expect(store.search(["a"], { limit: -1 })).rejects.toThrow(/limit must be an integer >= 0/);
    await expect(store.search(["a"], { offset: 1.5 })).rejects.toThrow(/offset must be an integer >= 0/);
    await expect(store.search(["a"], { filter: { x: { $in: 3 } } })).rejects.toThrow(/\$in needs an array/);
    await expect(store.batch([{ bogus: true } as never])).rejects.toThrow(/not a get, put, search or listNamespaces/);
  });

  it("refuses to be used after close()", async () => {
    const { store } = setup();
    await store.put(["a"], "k", { text: "x" });
    await store.close();
    await expect(store.get(["a"], "k")).rejects.toThrow(/is closed/);
    await store.open();
    expect((await store.get(["a"], "k"))?.value).toEqual({ text: "x" });
  });
});
