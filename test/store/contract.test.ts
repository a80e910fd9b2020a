import { InMemoryStore, InvalidNamespaceError as LangGraphInvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore, InvalidNamespaceError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const open: HNSWStore[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const c of cleanups.splice(0)) c();
});

function makeStore(opts: { fields?: string[]; index?: boolean; persistent?: boolean } = {}) {
  const embeddings = new FakeEmbeddings({ dims: 32 });
  let path: string | undefined;
  if (opts.persistent !== false) {
    const t = tempDir();
    cleanups.push(t.cleanup);
    path = t.dir;
  }
  const store = new HNSWStore({
    path,
    index: opts.index === false ? undefined : { dims: 32, embeddings, fields: opts.fields },
  });
  open.push(store);
  return { store, embeddings };
}

for (const persistent of [true, false]) {
  describe(`HNSWStore BaseStore contract (${persistent ? "on disk" : "in memory"})`, () => {
    it("puts, gets, updates and deletes, with Date timestamps", async () => {
      const { store } = makeStore({ persistent });
      await store.put(["docs"], "a", { title: "first" });
      const item = await store.get(["docs"], "a");
      expect(item?.value).toEqual({ title: "first" });
      expect(item?.createdAt).toBeInstanceOf(Date);
      expect(item?.namespace).toEqual(["docs"]);
      await new Promise((r) => setTimeout(r, 5));
      await store.put(["docs"], "a", { title: "second" });
      const updated = await store.get(["docs"], "a");
      expect(updated?.value).toEqual({ title: "second" });
      expect(updated!.createdAt.getTime()).toBe(item!.createdAt.getTime());
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(item!.updatedAt.getTime());
      await store.delete(["docs"], "a");
      expect(await store.get(["docs"], "a")).toBeNull();
      expect(await store.get(["nothing"], "x")).toBeNull();
    });

    it("returns copies: mutating a returned or stored value changes nothing", async () => {
      const { store } = makeStore({ persistent });
      const value = { nested: { n: 1 } };
      await store.put(["a"], "k", value);
      value.nested.n = 2;
      const got = await store.get(["a"], "k");
      expect(got?.value).toEqual({ nested: { n: 1 } });
      (got!.value as { nested: { n: number } }).nested.n = 3;
      expect((await store.get(["a"], "k"))?.value).toEqual({ nested: { n: 1 } });
    });

    it("matches namespace prefixes by whole labels only", async () => {
      const { store } = makeStore({ persistent });
      await store.put(["users", "1"], "m", { text: "one" });
      await store.put(["users", "10"], "m", { text: "ten" });
      await store.put(["users", "1", "sub"], "m", { text: "nested" });
      const keys = async (q?: string) =>
        (await store.search(["users", "1"], { query: q })).map((r) => `${r.namespace.join("/")}`).sort();
      expect(await keys()).toEqual(["users/1", "users/1/sub"]);
      expect(await keys("ten")).toEqual(["users/1", "users/1/sub"]);
      expect((await store.search(["users", "10"])).map((r) => r.value.text)).toEqual(["ten"]);
    });

    it("keeps namespaces that would collide if joined apart (':' and '/' allowed)", async () => {
      const { store } = makeStore({ persistent });
      await store.put(["a:b", "c"], "k", { v: 1 });
      await store.put(["a", "b:c"], "k", { v: 2 });
      await store.put(["a/b", "c"], "k", { v: 3 });
      await store.put(["a", "b/c"], "k", { v: 4 });
      expect((await store.get(["a:b", "c"], "k"))?.value.v).toBe(1);
      expect((await store.get(["a", "b:c"], "k"))?.value.v).toBe(2);
      expect((await store.get(["a/b", "c"], "k"))?.value.v).toBe(3);
      expect((await store.get(["a", "b/c"], "k"))?.value.v).toBe(4);
      expect(await store.listNamespaces()).toEqual([["a", "b/c"], ["a", "b:c"], ["a/b", "c"], ["a:b", "c"]]);
    });

    it("validates namespaces like validateNamespace", async () => {
      const { store } = makeStore({ persistent });
      await expect(store.put(["a.b"], "k", { v: 1 })).rejects.toThrow(/'a\.b' contains '\.'/);
      await expect(store.put([], "k", { v: 1 })).rejects.toThrow(InvalidNamespaceError);
      // Code that catches LangGraph's own class (any BaseStore) catches ours too.
      await expect(store.put(["x.y"], "k", { v: 1 })).rejects.toThrow(LangGraphInvalidNamespaceError);
      await expect(store.put(["a", ""], "k", { v: 1 })).rejects.toThrow(/empty label/);
      await expect(store.put(["langgraph", "x"], "k", { v: 1 })).rejects.toThrow(/reserved/);
      await expect(store.put(["a", 3 as unknown as string], "k", { v: 1 })).rejects.toThrow(/must be a string/);
      expect(await store.count()).toBe(0);
    });

    it("filters with every operator, on dotted paths", async () => {
      const { store } = makeStore({ persistent });
      await store.put(["f"], "a", { n: 1, color: "red", meta: { lang: "en", tags: ["x"] } });
      await store.put(["f"], "b", { n: 5, color: "blue", meta: { lang: "fr" } });
      await store.put(["f"], "c", { n: 10, color: "red" });
      const keys = async (filter: Record<string, unknown>) => (await store.search(["f"], { filter })).map((r) => r.key).sort();
      expect(await keys({ color: "red" })).toEqual(["a", "c"]);
      expect(await keys({ color: { $eq: "blue" } })).toEqual(["b"]);
      expect(await keys({ color: { $ne: "red" } })).toEqual(["b"]);
      expect(await keys({ n: { $gt: 1 } })).toEqual(["b", "c"]);
      expect(await keys({ n: { $gte: 5, $lt: 10 } })).toEqual(["b"]);
      expect(await keys({ n: { $lte: 5 } })).toEqual(["a", "b"]);
      expect(await keys({ n: { $in: [1, 10] } })).toEqual(["a", "c"]);
      expect(await keys({ n: { $nin: [1, 10] } })).toEqual(["b"]);
      expect(await keys({ "meta.lang": "fr" })).toEqual(["b"]);
      expect(await keys({ meta: { $exists: true } })).toEqual(["a", "b"]);
      expect(await keys({ "meta.tags": { $exists: false } })).toEqual(["b", "c"]);
      expect(await keys({ color: "red", n: { $gt: 5 } })).toEqual(["c"]);
      await expect(store.search(["f"], { filter: { n: { $ge: 1 } } })).rejects.toThrow(/unknown operator '\$ge'/);
    });

    it("pages with limit (default 10) and offset, newest first without a query", async () => {
      const { store } = makeStore({ persistent });
      for (let i = 0; i < 15; i++) {
        await store.put(["p"], `k${String(i).padStart(2, "0")}`, { i });
        await new Promise((r) => setTimeout(r, 2));
      }
      const first = await store.search(["p"]);
      expect(first).toHaveLength(10);
      expect(first[0].key).toBe("k14");
      expect(first.map((r) => r.value.i)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
      const page = await store.search(["p"], { limit: 3, offset: 12 });
      expect(page.map((r) => r.value.i)).toEqual([2, 1, 0]);
      expect(first.every((r) => r.score === undefined)).toBe(true);
    });

    it("ranks by cosine similarity with score set, best vector per item", async () => {
      const { store, embeddings } = makeStore({ persistent, fields: ["text", "tags[*]"] });
      await store.put(["s"], "cat", { text: "cats purr softly", tags: ["pets"] });
      await store.put(["s"], "car", { text: "engines and wheels", tags: ["vehicles", "penicillin allergy"] });
      await store.put(["s"], "dog", { text: "dogs bark loudly" });
      const res = await store.search(["s"], { query: "penicillin allergy" });
      expect(res[0].key).toBe("car");
      expect(res[0].score).toBeCloseTo(1, 5); // the tags[1] vector matches exactly
      const q = embeddings.embedText("cats purr");
      const cat = res.find((r) => r.key === "cat")!;
      const expected = Math.max(
        ...["cats purr softly", "pets"].map((t) => embeddings.embedText(t).reduce((s, x, i) => s + x * q[i], 0)),
      );
      const catRes = (await store.search(["s"], { query: "cats purr" })).find((r) => r.key === "cat")!;
      expect(catRes.score).toBeCloseTo(expected, 5);
      expect(cat.score).toBeLessThan(res[0].score!);
      for (let i = 1; i < res.length; i++) expect(res[i - 1].score!).toBeGreaterThanOrEqual(res[i].score!);
    });

    it("replaces all old vectors on re-put and removes them on delete", async () => {
      const { store } = makeStore({ persistent, fields: ["a", "b"] });
      await store.put(["r"], "x", { a: "zebra stripes", b: "giraffe neck" });
      await store.put(["r"], "y", { a: "plain text" });
      await store.put(["r"], "x", { a: "ocean waves" }); // no longer indexes b
      const res = await store.search(["r"], { query: "giraffe neck" });
      const x = res.find((r) => r.key === "x")!;
      expect(x.score).toBeLessThan(0.5);
      let stats = await store.stats();
      expect(stats.vectors).toBe(2);
      await store.delete(["r"], "x");
      stats = await store.stats();
      expect(stats.vectors).toBe(1);
      expect((await store.search(["r"], { query: "ocean waves" })).map((r) => r.key)).toEqual(["y"]);
    });

    it("honours a put's index override and puts unindexed items after scored ones, unscored", async () => {
      const { store } = makeStore({ persistent, fields: ["text"] });
      await store.put(["o"], "plain", { text: "hello world" }, false);
      await store.put(["o"], "other", { text: "nothing here", title: "hello world" }, ["title"]);
      await store.put(["o"], "doc", { text: "hello world again" });
      const res = await store.search(["o"], { query: "hello world" });
      expect(res.map((r) => r.key)).toEqual(["other", "doc", "plain"]);
      expect(res[2].score).toBeUndefined();
      expect(res[0].score).toBeCloseTo(1, 5);
    });

    it("applies a batch's operations in order, embedding its texts in one call", async () => {
      const { store, embeddings } = makeStore({ persistent, fields: ["text"] });
      const before = embeddings.documentCalls.length;
      const results = await store.batch([
        { namespace: ["b"], key: "k", value: { text: "alpha" } },
        { namespace: ["b"], key: "k" },
        { namespace: ["b"], key: "j", value: { text: "beta" } },
        { namespacePrefix: ["b"], query: "beta", limit: 5, offset: 0 },
        { namespace: ["b"], key: "k", value: null },
        { namespace: ["b"], key: "k" },
        { limit: 10, offset: 0 },
      ]);
      expect(embeddings.documentCalls.length - before).toBe(1);
      expect(embeddings.documentCalls.at(-1)!.sort()).toEqual(["alpha", "beta"]);
      expect((results[1] as { value: unknown }).value).toEqual({ text: "alpha" });
      expect((results[3] as { key: string }[]).map((r) => r.key)).toEqual(["j", "k"]);
      expect(results[5]).toBeNull();
      expect(results[6]).toEqual([["b"]]);
    });

    it("lists namespaces with prefix, suffix, wildcards, maxDepth, limit and offset", async () => {
      const { store } = makeStore({ persistent });
      const nss = [["a", "b", "c"], ["a", "b", "d"], ["a", "e", "c"], ["x", "y", "c"], ["x", "z"]];
      for (const ns of nss) await store.put(ns, "k", { v: 1 });
      expect(await store.listNamespaces()).toEqual([["a", "b", "c"], ["a", "b", "d"], ["a", "e", "c"], ["x", "y", "c"], ["x", "z"]]);
      expect(await store.listNamespaces({ prefix: ["a"] })).toEqual([["a", "b", "c"], ["a", "b", "d"], ["a", "e", "c"]]);
      expect(await store.listNamespaces({ suffix: ["c"] })).toEqual([["a", "b", "c"], ["a", "e", "c"], ["x", "y", "c"]]);
      expect(await store.listNamespaces({ prefix: ["a", "*", "c"] })).toEqual([["a", "b", "c"], ["a", "e", "c"]]);
      expect(await store.listNamespaces({ prefix: ["*", "b"] })).toEqual([["a", "b", "c"], ["a", "b", "d"]]);
      expect(await store.listNamespaces({ maxDepth: 2 })).toEqual([["a", "b"], ["a", "e"], ["x", "y"], ["x", "z"]]);
      expect(await store.listNamespaces({ maxDepth: 1 })).toEqual([["a"], ["x"]]);
      expect(await store.listNamespaces({ limit: 2, offset: 1 })).toEqual([["a", "b", "d"], ["a", "e", "c"]]);
      expect(await store.listNamespaces({ prefix: ["a"], suffix: ["d"] })).toEqual([["a", "b", "d"]]);
      await store.delete(["x", "z"], "k");
      expect(await store.listNamespaces({ prefix: ["x"] })).toEqual([["x", "y", "c"]]);
    });

    it("counts and deletes whole namespaces by prefix", async () => {
      const { store } = makeStore({ persistent });
      await store.put(["users", "42"], "a", { text: "a" });
      await store.put(["users", "42", "x"], "b", { text: "b" });
      await store.put(["users", "420"], "c", { text: "c" });
      expect(await store.count(["users", "42"])).toBe(2);
      expect(await store.deleteNamespace(["users", "42"])).toBe(2);
      expect(await store.count()).toBe(1);
      expect((await store.get(["users", "420"], "c"))?.value).toEqual({ text: "c" });
    });
  });
}

describe("keyword ranking indexes", () => {
  it("keeps per-namespace and store-wide keyword indexes in step with puts and deletes", async () => {
    const { store } = makeStore({ index: false });
    for (let u = 0; u < 12; u++) {
      await store.put(["users", `u${u}`], "a", { text: `member${u} likes sailing` });
      await store.put(["users", `u${u}`], "b", { text: `member${u} has a penicillin allergy` });
    }
    const keys = async (prefix: string[], query: string) => (await store.search(prefix, { query, limit: 3 })).map((r) => `${r.namespace[1]}/${r.key}`);
    // One namespace (its own index), then 12 namespaces (the store-wide index).
    expect((await keys(["users", "u1"], "penicillin"))[0]).toBe("u1/b");
    expect((await keys(["users"], "member7 penicillin"))[0]).toBe("u7/b");
    await store.put(["users", "u1"], "c", { text: "penicillin penicillin penicillin" });
    expect((await keys(["users", "u1"], "penicillin"))[0]).toBe("u1/c");
    expect((await keys(["users"], "penicillin"))[0]).toBe("u1/c");
    await store.delete(["users", "u1"], "c");
    expect(await keys(["users", "u1"], "penicillin")).not.toContain("u1/c");
    expect(await keys(["users"], "penicillin")).not.toContain("u1/c");
    await store.deleteNamespace(["users", "u1"]);
    await store.put(["users", "u1"], "d", { text: "penicillin again" });
    expect(await keys(["users", "u1"], "penicillin")).toEqual(["u1/d"]);
  });
});

describe("HNSWStore against InMemoryStore", () => {
  it("returns the same items and order as InMemoryStore for the same operations", async () => {
    const embeddings = new FakeEmbeddings({ dims: 32 });
    const mem = new InMemoryStore({ index: { dims: 32, embeddings, fields: ["text"] } });
    const { store } = makeStore({ fields: ["text"] });
    const texts = ["red apples", "green pears", "yellow bananas", "red cherries", "blue berries", "green apples"];
    for (const [i, text] of texts.entries()) {
      await mem.put(["fruit"], `k${i}`, { text, i });
      await store.put(["fruit"], `k${i}`, { text, i });
    }
    for (const query of ["red", "green apples", "berries"]) {
      const a = (await mem.search(["fruit"], { query, limit: 3 })).map((r) => [r.key, r.score?.toFixed(4)]);
      const b = (await store.search(["fruit"], { query, limit: 3 })).map((r) => [r.key, r.score?.toFixed(4)]);
      expect(b.map((x) => x[1])).toEqual(a.map((x) => x[1]));
    }
    expect((await store.search(["fruit"], { filter: { i: { $gte: 4 } } })).map((r) => r.key).sort()).toEqual(["k4", "k5"]);
  });

  it("ranks by keywords (BM25) when there is no index, where InMemoryStore returns unranked items", async () => {
    const { store } = makeStore({ index: false });
    await store.put(["k"], "a", { text: "I like sailing on weekends" });
    await store.put(["k"], "b", { text: "Allergic to penicillin since childhood" });
    await store.put(["k"], "c", { text: "Works as a nurse" });
    const res = await store.search(["k"], { query: "penicillin allergy" });
    expect(res[0].key).toBe("b");
    expect(res[0].score).toBeGreaterThan(0);
  });
});
