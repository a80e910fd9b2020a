/**
 * The official @langchain/langgraph-sdk Client drives every store route of
 * the memory server over real HTTP on 127.0.0.1, against a real HNSWStore on
 * disk. Search by meaning uses the REAL Universal Sentence Encoder lite.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UniversalSentenceEncoderEmbeddings } from "../../src/index.js";
import { API_KEY, startTestServer, type TestServer } from "./support.js";

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ embeddings: new UniversalSentenceEncoderEmbeddings(), dims: 512 });
  client = new Client({ apiUrl: server.url, apiKey: API_KEY, callerOptions: { maxRetries: 0 } });
});
afterAll(async () => {
  await server?.close();
});

describe("the official LangGraph SDK against the memory server", () => {
  it("putItem, getItem (with created_at/updated_at), update, deleteItem", async () => {
    await client.store.putItem(["users", "u1", "facts"], "diet", { text: "Vegetarian since 2015", since: 2015 });
    const item = await client.store.getItem(["users", "u1", "facts"], "diet");
    expect(item).toMatchObject({ namespace: ["users", "u1", "facts"], key: "diet", value: { text: "Vegetarian since 2015", since: 2015 } });
    expect(new Date(item!.createdAt).getTime()).toBeGreaterThan(0);
    expect(item!.createdAt).toBe((item as unknown as { created_at: string }).created_at);

    await new Promise((r) => setTimeout(r, 5));
    await client.store.putItem(["users", "u1", "facts"], "diet", { text: "Vegan since 2020", since: 2020 });
    const updated = await client.store.getItem(["users", "u1", "facts"], "diet");
    expect(updated!.value).toEqual({ text: "Vegan since 2020", since: 2020 });
    expect(updated!.createdAt).toBe(item!.createdAt);
    expect(new Date(updated!.updatedAt).getTime()).toBeGreaterThan(new Date(item!.updatedAt).getTime());

    await client.store.deleteItem(["users", "u1", "facts"], "diet");
    expect(await client.store.getItem(["users", "u1", "facts"], "diet")).toBeNull();
    expect(await client.store.getItem(["users", "nobody"], "nothing")).toBeNull();
    // It is gone from the store itself, not just from the HTTP view.
    expect(await server.store.get(["users", "u1", "facts"], "diet")).toBeNull();
  });

  it("searchItems by meaning returns the right fact first, with a score", async () => {
    const facts = [
      "Severe penicillin reaction as a child",
      "Lives in a flat in Rotterdam with two cats",
      "Plays the cello in a community orchestra",
      "Afraid of flying; takes the train everywhere",
    ];
    for (const [i, text] of facts.entries()) await client.store.putItem(["users", "u2"], `f${i}`, { text, i });
    const { items } = await client.store.searchItems(["users", "u2"], { query: "Which antibiotics should I avoid?", limit: 2 });
    expect(items).toHaveLength(2);
    expect(items[0].key).toBe("f0");
    expect(typeof items[0].score).toBe("number");
    expect(items[0].score!).toBeGreaterThan(items[1].score!);
    const instrument = await client.store.searchItems(["users", "u2"], { query: "What musical instrument does she play?", limit: 1 });
    expect(instrument.items[0].key).toBe("f2");
  });

  it("searchItems with filters and paging", async () => {
    for (let i = 0; i < 12; i++) {
      await client.store.putItem(["docs", "paging"], `d${String(i).padStart(2, "0")}`, { text: `note ${i}`, n: i, kind: i % 2 ? "odd" : "even" }, { index: false });
    }
    const even = await client.store.searchItems(["docs", "paging"], { filter: { kind: "even" }, limit: 100 });
    expect(even.items.map((x) => x.value.n).sort((a, b) => (a as number) - (b as number))).toEqual([0, 2, 4, 6, 8, 10]);
    const big = await client.store.searchItems(["docs", "paging"], { filter: { n: { $gte: 9 } }, limit: 100 });
    expect(big.items.map((x) => x.key).sort()).toEqual(["d09", "d10", "d11"]);

    const first = await client.store.searchItems(["docs", "paging"], { limit: 5 });
    const second = await client.store.searchItems(["docs", "paging"], { limit: 5, offset: 5 });
    const third = await client.store.searchItems(["docs", "paging"], { limit: 5, offset: 10 });
    expect(first.items).toHaveLength(5);
    expect(third.items).toHaveLength(2);
    const keys = [...first.items, ...second.items, ...third.items].map((x) => x.key);
    expect(new Set(keys).size).toBe(12);
    // Newest first without a query.
    expect(first.items[0].key).toBe("d11");
    // The default limit is 10.
    expect((await client.store.searchItems(["docs", "paging"])).items).toHaveLength(10);
  });

  it("listNamespaces with prefix, suffix, max_depth, limit and offset", async () => {
    const put = (ns: string[]) => client.store.putItem(ns, "k", { text: "x" }, { index: false });
    await put(["tree", "a", "memories"]);
    await put(["tree", "a", "profile"]);
    await put(["tree", "b", "memories"]);
    await put(["tree", "b", "deep", "memories"]);
    await put(["treehouse", "z"]);

    const all = await client.store.listNamespaces({ prefix: ["tree"] });
    expect(all.namespaces).toEqual([
      ["tree", "a", "memories"],
      ["tree", "a", "profile"],
      ["tree", "b", "deep", "memories"],
      ["tree", "b", "memories"],
    ]);
    const mem = await client.store.listNamespaces({ prefix: ["tree"], suffix: ["memories"] });
    expect(mem.namespaces).toHaveLength(3);
    expect(mem.namespaces.every((ns) => ns.at(-1) === "memories")).toBe(true);
    const shallow = await client.store.listNamespaces({ prefix: ["tree"], maxDepth: 2 });
    expect(shallow.namespaces).toEqual([
      ["tree", "a"],
      ["tree", "b"],
    ]);
    const paged = await client.store.listNamespaces({ prefix: ["tree"], limit: 2, offset: 1 });
    expect(paged.namespaces).toEqual([
      ["tree", "a", "profile"],
      ["tree", "b", "deep", "memories"],
    ]);
  });

  it("a wrong or missing API key is refused with 401 and a named error", async () => {
    const wrong = new Client({ apiUrl: server.url, apiKey: "not-the-key-000", callerOptions: { maxRetries: 0 } });
    await expect(wrong.store.getItem(["users", "u1"], "k")).rejects.toThrow(/401.*UnauthorizedError/);
    const none = new Client({ apiUrl: server.url, apiKey: null, callerOptions: { maxRetries: 0 } });
    await expect(none.store.searchItems(["users"])).rejects.toThrow(/401.*UnauthorizedError/);
  });
});
