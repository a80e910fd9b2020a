import { InvalidNamespaceError as LangGraphInvalidNamespaceError, type BaseStore } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidNamespaceError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

/**
 * The store contract, written once and run over every store the package
 * supports (see stores.test.ts). A factory builds a fresh, empty store; the
 * embedder is always the FakeEmbeddings TEST DOUBLE (bag of words), since
 * meaning is not under test here.
 */
export interface ContractStore {
  store: BaseStore & {
    count?(prefix?: string[]): Promise<number>;
    deleteNamespace?(prefix: string[]): Promise<number>;
    stats?(): Promise<{ vectors: number }>;
  };
  embeddings: FakeEmbeddings;
  cleanup: () => Promise<void>;
}

export interface ContractOptions {
  /** Fields to embed; undefined means the store's default. */
  fields?: string[];
  /** false: a store without a vector index. */
  index?: boolean;
}

/**
 * The embedder (FakeEmbeddings, a TEST DOUBLE) and the `index` option a
 * factory gives its store for `options`: undefined when `options.index` is false.
 */
export function contractIndex(options: ContractOptions, dims: number) {
  const embeddings = new FakeEmbeddings({ dims });
  return { embeddings, index: options.index === false ? undefined : { dims, embeddings, fields: options.fields } };
}

/** What a store supports beyond LangGraph's base contract. */
export interface ContractCapabilities {
  /** $in, $nin, $exists and unknown-operator errors. */
  extendedFilters: boolean;
  /** count(), deleteNamespace(), stats(). */
  extras: boolean;
  /** a batch's documents are embedded in one call. */
  batchedEmbedding: boolean;
  /** our wording for namespace errors and refusal of non-string labels. */
  namespaceDetail: boolean;
  /** a search operation's own `retrieval` ("vector", "keyword", "hybrid") overrides the store's. */
  searchRetrieval?: boolean;
}

export interface ContractFactory {
  name: string;
  make: (options?: ContractOptions) => Promise<ContractStore>;
  capabilities: ContractCapabilities;
  /** Contract tests this store is known to fail, by name, with the reason (they are skipped, and listed). */
  divergences?: Record<string, string>;
}

export function describeStoreContract(factory: ContractFactory): void {
  const caps = factory.capabilities;
  const live: ContractStore[] = [];
  const make = async (options: ContractOptions = {}) => {
    const made = await factory.make({ ...options, fields: options.fields ?? ["text"] });
    live.push(made);
    return made;
  };

  const test = (name: string, fn: () => Promise<void>) => (factory.divergences?.[name] ? it.skip : it)(name, fn);

  describe(`store contract: ${factory.name}`, () => {
    afterEach(async () => {
      for (const s of live.splice(0)) await s.cleanup();
    });

    test("puts, gets, updates and deletes, with Date timestamps", async () => {
      const { store } = await make();
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

    test("returns copies: mutating a returned or stored value changes nothing", async () => {
      const { store } = await make();
      const value = { nested: { n: 1 } };
      await store.put(["a"], "k", value);
      value.nested.n = 2;
      const got = await store.get(["a"], "k");
      expect(got?.value).toEqual({ nested: { n: 1 } });
      (got!.value as { nested: { n: number } }).nested.n = 3;
      expect((await store.get(["a"], "k"))?.value).toEqual({ nested: { n: 1 } });
    });

    test("matches namespace prefixes by whole labels only", async () => {
      const { store } = await make();
      await store.put(["users", "1"], "m", { text: "one" });
      await store.put(["users", "10"], "m", { text: "ten" });
      await store.put(["users", "1", "sub"], "m", { text: "nested" });
      const keys = async (q?: string) =>
        (await store.search(["users", "1"], { query: q })).map((r) => `${r.namespace.join("/")}`).sort();
      expect(await keys()).toEqual(["users/1", "users/1/sub"]);
      expect(await keys("ten")).toEqual(["users/1", "users/1/sub"]);
      expect((await store.search(["users", "10"])).map((r) => r.value.text)).toEqual(["ten"]);
    });

    test("keeps namespaces that would collide if joined apart (':' and '/' allowed)", async () => {
      const { store } = await make();
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

    test("validates namespaces like validateNamespace", async () => {
      const { store } = await make();
      // Code that catches LangGraph's own class (any BaseStore) catches every store's.
      await expect(store.put(["x.y"], "k", { v: 1 })).rejects.toThrow(LangGraphInvalidNamespaceError);
      await expect(store.put([], "k", { v: 1 })).rejects.toThrow(LangGraphInvalidNamespaceError);
      await expect(store.put(["a", ""], "k", { v: 1 })).rejects.toThrow(LangGraphInvalidNamespaceError);
      await expect(store.put(["langgraph", "x"], "k", { v: 1 })).rejects.toThrow(LangGraphInvalidNamespaceError);
      // Messages lead with LangGraph's exact sentences (user code and peer suites match on them).
      const leads = async (call: Promise<unknown>, sentence: string) => {
        const err = await call.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(LangGraphInvalidNamespaceError);
        expect((err as Error).message.startsWith(sentence)).toBe(true);
      };
      await leads(store.put([], "k", { v: 1 }), "Namespace cannot be empty.");
      await leads(store.put(["a", ""], "k", { v: 1 }), "Namespace labels cannot be empty strings.");
      await leads(store.put(["langgraph", "x"], "k", { v: 1 }), 'Root label for namespace cannot be "langgraph".');
      if (caps.namespaceDetail) {
        // LangGraph's period message starts "Invalid namespace label …"; ours starts with its rule, then names the label.
        await leads(store.put(["a.b"], "k", { v: 1 }), "Namespace labels cannot contain periods ('.').");
        await leads(store.put(["a", 3 as unknown as string], "k", { v: 1 }), "Namespace labels must be strings.");
        await expect(store.put(["a.b"], "k", { v: 1 })).rejects.toThrow(InvalidNamespaceError);
        await expect(store.put(["a.b"], "k", { v: 1 })).rejects.toThrow(/'a\.b' contains '\.'/);
        await expect(store.put(["a", ""], "k", { v: 1 })).rejects.toThrow(/empty label/);
        await expect(store.put(["langgraph", "x"], "k", { v: 1 })).rejects.toThrow(/reserved/);
        await expect(store.put(["a", 3 as unknown as string], "k", { v: 1 })).rejects.toThrow(/must be a string/);
      }
      expect(await store.search([])).toEqual([]);
    });

    test("batch() writes under the reserved root; put() refuses it", async () => {
      const { store } = await make();
      // LangGraph validates namespaces in put(), not in batch(): the framework itself writes under ["langgraph", …].
      await store.batch([{ namespace: ["langgraph", "runs"], key: "k", value: { v: 1 } }]);
      expect((await store.get(["langgraph", "runs"], "k"))?.value).toEqual({ v: 1 });
      await expect(store.put(["langgraph", "runs"], "k2", { v: 2 })).rejects.toThrow(LangGraphInvalidNamespaceError);
      await store.batch([{ namespace: ["langgraph", "runs"], key: "k", value: null }]);
      expect(await store.get(["langgraph", "runs"], "k")).toBeNull();
    });

    test("filters with every operator, on dotted paths", async () => {
      const { store } = await make();
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
      expect(await keys({ "meta.lang": "fr" })).toEqual(["b"]);
      expect(await keys({ color: "red", n: { $gt: 5 } })).toEqual(["c"]);
      if (!caps.extendedFilters) return;
      expect(await keys({ n: { $in: [1, 10] } })).toEqual(["a", "c"]);
      expect(await keys({ n: { $nin: [1, 10] } })).toEqual(["b"]);
      expect(await keys({ meta: { $exists: true } })).toEqual(["a", "b"]);
      expect(await keys({ "meta.tags": { $exists: false } })).toEqual(["b", "c"]);
      await expect(store.search(["f"], { filter: { n: { $ge: 1 } } })).rejects.toThrow(/unknown operator '\$ge'/);
    });

    test("pages with limit (default 10) and offset, newest first without a query", async () => {
      const { store } = await make();
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

    test("ranks by cosine similarity with score set, best vector per item", async () => {
      const { store, embeddings } = await make({ fields: ["text", "tags[*]"] });
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

    test("returns scores that never go up down the list, and stable pages of one ranking", async () => {
      const { store } = await make({ fields: ["text"] });
      const words = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "melon"];
      for (let i = 0; i < 40; i++) {
        const text = `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5 + 1) % 8]} note ${i}`;
        await store.put(["fruit", `u${i % 3}`], `k${String(i).padStart(2, "0")}`, { text, n: i });
      }
      for (const query of ["apple pear", "fig kiwi lime", "note 7", "melon"]) {
        const full = await store.search(["fruit"], { query, limit: 40 });
        expect(full).toHaveLength(40);
        const scores = full.map((r) => r.score);
        const scored = scores.filter((s): s is number => typeof s === "number");
        for (let i = 1; i < scored.length; i++) expect(scored[i - 1]).toBeGreaterThanOrEqual(scored[i]);
        // Unscored items only after every scored one.
        expect(scores.slice(scored.length).every((s) => s === undefined || s === null)).toBe(true);
        const keys = full.map((r) => r.key);
        for (const size of [3, 7, 10]) {
          const paged: string[] = [];
          for (let offset = 0; offset < 40; offset += size) {
            paged.push(...(await store.search(["fruit"], { query, limit: size, offset })).map((r) => r.key));
          }
          expect(paged).toEqual(keys);
        }
        // The same holds with a filter.
        const odd = (await store.search(["fruit"], { query, limit: 40, filter: { n: { $gt: 19 } } })).map((r) => r.key);
        expect((await store.search(["fruit"], { query, limit: 5, offset: 5, filter: { n: { $gt: 19 } } })).map((r) => r.key)).toEqual(odd.slice(5, 10));
      }
    });

    test("replaces all old vectors on re-put and removes them on delete", async () => {
      const { store } = await make({ fields: ["a", "b"] });
      await store.put(["r"], "x", { a: "zebra stripes", b: "giraffe neck" });
      await store.put(["r"], "y", { a: "plain text" });
      await store.put(["r"], "x", { a: "ocean waves" }); // no longer indexes b
      const res = await store.search(["r"], { query: "giraffe neck" });
      const x = res.find((r) => r.key === "x")!;
      expect(x.score).toBeLessThan(0.5);
      if (caps.extras) expect((await store.stats!()).vectors).toBe(2);
      await store.delete(["r"], "x");
      if (caps.extras) expect((await store.stats!()).vectors).toBe(1);
      expect((await store.search(["r"], { query: "ocean waves" })).map((r) => r.key)).toEqual(["y"]);
    });

    test("honours a put's index override and puts unindexed items after scored ones, unscored", async () => {
      const { store } = await make({ fields: ["text"] });
      await store.put(["o"], "plain", { text: "hello world" }, false);
      await store.put(["o"], "other", { text: "nothing here", title: "hello world" }, ["title"]);
      await store.put(["o"], "doc", { text: "hello world again" });
      const res = await store.search(["o"], { query: "hello world" });
      expect(res.map((r) => r.key)).toEqual(["other", "doc", "plain"]);
      expect(res[2].score).toBeUndefined();
      expect(res[0].score).toBeCloseTo(1, 5);
    });

    if (caps.searchRetrieval) {
      test("a search's own retrieval overrides the store's; searches of a batch share the query's embedding", async () => {
        const { store, embeddings } = await make({ fields: ["text"] });
        await store.batch([
          { namespace: ["r"], key: "apple", value: { text: "apple pie with cream" } },
          { namespace: ["r"], key: "banana", value: { text: "banana split" } },
        ]);
        const search = (retrieval?: string) => ({ namespacePrefix: ["r"], query: "apple", limit: 5, offset: 0, ...(retrieval ? { retrieval } : {}) });
        const queries = embeddings.queryCalls.length;
        const [hybrid, vector, keyword] = (await store.batch([search(), search("vector"), search("keyword")])) as Array<Array<{ key: string; score?: number }>>;
        // One embedding for the three (the keyword one needs none, the other two share it).
        expect(embeddings.queryCalls.length - queries).toBe(1);
        expect(hybrid!.map((r) => r.key)).toEqual(["apple", "banana"]);
        // By vector alone every item with a vector has a cosine; by keywords alone "banana" matches nothing.
        expect(vector!.map((r) => [r.key, typeof r.score])).toEqual([["apple", "number"], ["banana", "number"]]);
        expect(keyword![0]!.key).toBe("apple");
        expect(keyword!.find((r) => r.key === "banana")?.score).toBeUndefined();
        const before = embeddings.queryCalls.length;
        await store.batch([search("keyword")]);
        expect(embeddings.queryCalls.length).toBe(before);
        await expect(store.batch([search("semantic")])).rejects.toThrow(/retrieval must be one of vector, keyword, hybrid/);
      });
    }

    test("applies a batch's operations in order, embedding its texts in one call", async () => {
      const { store, embeddings } = await make({ fields: ["text"] });
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
      if (caps.batchedEmbedding) {
        expect(embeddings.documentCalls.length - before).toBe(1);
        expect(embeddings.documentCalls.at(-1)!.sort()).toEqual(["alpha", "beta"]);
      }
      expect((results[1] as { value: unknown }).value).toEqual({ text: "alpha" });
      expect((results[3] as { key: string }[]).map((r) => r.key)).toEqual(["j", "k"]);
      expect(results[5]).toBeNull();
      expect(results[6]).toEqual([["b"]]);
    });

    test("lists namespaces with prefix, suffix, wildcards, maxDepth, limit and offset", async () => {
      const { store } = await make();
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

    test("counts and deletes whole namespaces by prefix", async () => {
      if (!caps.extras) return;
      const { store } = await make();
      await store.put(["users", "42"], "a", { text: "a" });
      await store.put(["users", "42", "x"], "b", { text: "b" });
      await store.put(["users", "420"], "c", { text: "c" });
      expect(await store.count!(["users", "42"])).toBe(2);
      expect(await store.deleteNamespace!(["users", "42"])).toBe(2);
      expect(await store.count!()).toBe(1);
      expect((await store.get(["users", "420"], "c"))?.value).toEqual({ text: "c" });
    });
  });
}
