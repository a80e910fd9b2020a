/**
 * Per-user isolation through both API shapes, over real HTTP on 127.0.0.1
 * and a real HNSWStore: end user A (the TEST bearer hook in support.ts) can
 * never read, list, search, update or delete user B's memories, whatever
 * namespace, filter or user_id it sends. Policy: on the store API the server
 * REWRITES (every namespace an end user sends is prefixed with
 * ["users", identity] and stripped from results); on the memory endpoints it
 * REFUSES a user_id other than the caller's own (403).
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteStore, UnauthorizedError } from "../../src/index.js";
import { API_KEY, asUser, call, startTestServer, type TestServer } from "./support.js";

let server: TestServer;
const sdk = (user: string) => new Client({ apiUrl: server.url, apiKey: null, defaultHeaders: asUser(user), callerOptions: { maxRetries: 0 } });

beforeAll(async () => {
  server = await startTestServer();
  // Bob's memories, written by a trusted service, through both shapes.
  const service = new Client({ apiUrl: server.url, apiKey: API_KEY, callerOptions: { maxRetries: 0 } });
  await service.store.putItem(["users", "bob", "notes"], "secret", { text: "bob pin code is 4321", owner: "bob" });
  const made = await call(server.url, "POST", "/v1/store/memories", { text: "bob allergic to peanuts", id: "m-bob", user_id: "bob" }, { "x-api-key": API_KEY });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

describe("end users through the LangGraph store API (SDK)", () => {
  it("a user's namespaces are relative to their own root, and round-trip", async () => {
    const alice = sdk("alice");
    await alice.store.putItem(["notes"], "n1", { text: "alice likes tea" });
    expect((await alice.store.getItem(["notes"], "n1"))!.namespace).toEqual(["notes"]);
    expect(await server.store.get(["users", "alice", "notes"], "n1")).not.toBeNull();
    expect((await alice.store.listNamespaces()).namespaces).toEqual([["notes"]]);
  });

  it("alice can never read, search, list, overwrite or delete bob's items, whatever namespace she sends", async () => {
    const alice = sdk("alice");
    for (const ns of [["users", "bob", "notes"], ["bob", "notes"], ["notes"], ["alice", "..", "bob"].map((l) => l.replace(/\./g, "%2E"))]) {
      expect(await alice.store.getItem(ns, "secret")).toBeNull();
    }
    for (const prefix of [[], ["users"], ["users", "bob"], ["bob"]]) {
      const { items } = await alice.store.searchItems(prefix, { query: "bob pin code", limit: 100 });
      expect(items.every((i) => i.value.owner !== "bob" && !String(i.value.text).includes("bob"))).toBe(true);
      const filtered = await alice.store.searchItems(prefix, { filter: { owner: "bob" }, limit: 100 });
      expect(filtered.items).toEqual([]);
    }
    for (const cond of [{}, { prefix: ["users"] }, { prefix: ["users", "bob"] }, { suffix: ["notes"] }, { prefix: ["*"] }, { maxDepth: 1 }]) {
      const { namespaces } = await alice.store.listNamespaces(cond);
      expect(namespaces.flat()).not.toContain("bob");
    }
    // "Overwriting" and deleting bob's item only touch alice's own namespace.
    await alice.store.putItem(["users", "bob", "notes"], "secret", { text: "hacked" });
    await alice.store.deleteItem(["users", "bob", "notes"], "secret");
    expect((await server.store.get(["users", "bob", "notes"], "secret"))!.value.text).toBe("bob pin code is 4321");
    expect(await server.store.get(["users", "alice", "users", "bob", "notes"], "secret")).toBeNull();
  });

  it("the same holds for RemoteStore acting as an end user (batch route)", async () => {
    const alice = new RemoteStore({ url: server.url, headers: asUser("alice") });
    const [got, found, listed] = await alice.batch([
      { namespace: ["users", "bob", "notes"], key: "secret" },
      { namespacePrefix: [], filter: { owner: "bob" }, limit: 100, offset: 0 },
      { matchConditions: [{ matchType: "prefix", path: ["users", "bob"] }], limit: 100, offset: 0 },
    ]);
    expect(got).toBeNull();
    expect(found).toEqual([]);
    expect(listed).toEqual([]);
  });

  it("an end user cannot write to their bare root or to the reserved 'langgraph' root", async () => {
    const r1 = await call(server.url, "PUT", "/store/items", { namespace: [], key: "k", value: { text: "x" } }, asUser("alice"));
    expect(r1.status).toBe(400);
    expect(r1.body.error).toBe("InvalidNamespaceError");
    const r2 = await call(server.url, "PUT", "/store/items", { namespace: ["langgraph"], key: "k", value: { text: "x" } }, asUser("alice"));
    expect(r2.body.error).toBe("InvalidNamespaceError");
  });
});

describe("end users through the memory endpoints (/v1)", () => {
  const asAlice = asUser("alice");

  it("alice creates, lists, searches, gets, updates and deletes her own memories", async () => {
    const made = await call(server.url, "POST", "/v1/store/memories", { text: "alice runs marathons", metadata: { topic: "sport" } }, asAlice);
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    expect(made.body).toMatchObject({ text: "alice runs marathons", value: { text: "alice runs marathons", source: "api", metadata: { topic: "sport" } } });
    expect((await server.store.get(["users", "alice"], id))!.value.text).toBe("alice runs marathons");

    const listed = await call(server.url, "POST", "/v1/store/memories/list", { filter: { "metadata.topic": "sport" } }, asAlice);
    expect(listed.body.memories.map((m: { id: string }) => m.id)).toEqual([id]);
    const found = await call(server.url, "POST", "/v1/store/search", { query: "alice marathons", limit: 3 }, asAlice);
    expect(found.body.memories[0].id).toBe(id);
    expect(typeof found.body.memories[0].score).toBe("number");
    expect((await call(server.url, "POST", `/v1/store/memories/${id}`, undefined, asAlice)).body.text).toBe("alice runs marathons");
    const got = await call(server.url, "GET", `/v1/store/memories/${id}`, undefined, asAlice);
    expect(got.status).toBe(200);
    // An end user addresses namespaces under their own root: theirs is the root itself.
    expect(got.body).toMatchObject({ id, text: "alice runs marathons", namespace: [] });
    const upd = await call(server.url, "PUT", `/v1/store/memories/${id}`, { text: "alice runs half marathons" }, asAlice);
    expect(upd.status).toBe(200);
    expect(upd.body.text).toBe("alice runs half marathons");
    expect((await call(server.url, "DELETE", `/v1/store/memories/${id}`, undefined, asAlice)).body.deleted).toBe(1);
    expect((await call(server.url, "POST", `/v1/store/memories/${id}`, undefined, asAlice)).status).toBe(404);
  });

  it("alice can never reach bob's memories: user_id other than her own is refused; bob's ids are not found", async () => {
    for (const [method, path, body] of [
      ["POST", "/v1/store/memories/list", { user_id: "bob" }],
      ["POST", "/v1/store/search", { query: "peanuts", user_id: "bob" }],
      ["POST", "/v1/store/memories", { text: "planted", user_id: "bob" }],
      ["POST", "/v1/store/memories/m-bob", { user_id: "bob" }],
      ["GET", "/v1/store/memories/m-bob?user_id=bob", undefined],
      ["PUT", "/v1/store/memories/m-bob", { text: "hacked", user_id: "bob" }],
      ["DELETE", "/v1/store/memories/m-bob", { user_id: "bob" }],
      ["POST", "/v1/store/memories/forget", { all: true, user_id: "bob" }],
    ] as const) {
      const r = await call(server.url, method, path, body, asAlice);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error).toBe("ForbiddenError");
    }
    expect((await call(server.url, "POST", "/v1/store/memories/m-bob", undefined, asAlice)).status).toBe(404);
    expect((await call(server.url, "GET", "/v1/store/memories/m-bob", undefined, asAlice)).status).toBe(404);
    expect((await call(server.url, "PUT", "/v1/store/memories/m-bob", { text: "hacked" }, asAlice)).status).toBe(404);
    expect((await call(server.url, "DELETE", "/v1/store/memories/m-bob", undefined, asAlice)).status).toBe(404);
    const search = await call(server.url, "POST", "/v1/store/search", { query: "bob allergic to peanuts", filter: { text: "bob allergic to peanuts" } }, asAlice);
    expect(search.body.memories).toEqual([]);
    const forget = await call(server.url, "POST", "/v1/store/memories/forget", { all: true }, asAlice);
    expect(forget.status).toBe(200);
    // Bob's memories are all still there.
    expect((await server.store.get(["users", "bob"], "m-bob"))!.value.text).toBe("bob allergic to peanuts");
    expect(await server.store.get(["users", "bob", "notes"], "secret")).not.toBeNull();
  });

  it("a service reads one memory with GET (user_id in the query) and sees its whole namespace", async () => {
    const key = { "x-api-key": API_KEY };
    const got = await call(server.url, "GET", "/v1/store/memories/m-bob?user_id=bob", undefined, key);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: "m-bob", text: "bob allergic to peanuts", namespace: ["users", "bob"] });
    const viaPost = await call(server.url, "POST", "/v1/store/memories/m-bob", { user_id: "bob" }, key);
    expect(viaPost.body).toEqual(got.body);
    const listed = await call(server.url, "POST", "/v1/store/memories/list", { user_id: "bob", limit: 100 }, key);
    expect(listed.body.memories.map((m: { namespace: string[] }) => m.namespace)).toContainEqual(["users", "bob", "notes"]);
    expect((await call(server.url, "GET", "/v1/store/memories/m-bob?user_id=carol", undefined, key)).status).toBe(404);
    expect((await call(server.url, "GET", "/v1/store/memories/m-bob?user_id=bob&extra=1", undefined, key)).status).toBe(400);
  });

  it("forget deletes by ids and by filter within the user only; it needs one of ids, filter or all", async () => {
    const key = { "x-api-key": API_KEY };
    for (const [i, topic] of ["food", "food", "work"].entries()) {
      await call(server.url, "POST", "/v1/store/memories", { text: `carol fact ${i}`, id: `c${i}`, metadata: { topic }, user_id: "carol" }, key);
    }
    await call(server.url, "POST", "/v1/store/memories", { text: "dave food fact", id: "d0", metadata: { topic: "food" }, user_id: "dave" }, key);
    expect((await call(server.url, "POST", "/v1/store/memories/forget", { user_id: "carol" }, key)).body.error).toBe("InvalidArgumentError");
    const byFilter = await call(server.url, "POST", "/v1/store/memories/forget", { user_id: "carol", filter: { "metadata.topic": "food" } }, key);
    expect(byFilter.body.deleted).toBe(2);
    expect(await server.store.get(["users", "dave"], "d0")).not.toBeNull();
    expect(await server.store.get(["users", "carol"], "c2")).not.toBeNull();
    const byId = await call(server.url, "POST", "/v1/store/memories/forget", { user_id: "carol", ids: ["c2", "nope"] }, key);
    expect(byId.body).toEqual({ deleted: 1, ids: ["c2"] });
    expect(await server.store.search(["users", "carol"])).toEqual([]);
  });

  it("RemoteStore with a wrong key gets the UnauthorizedError class back, and reads nothing", async () => {
    const intruder = new RemoteStore({ url: server.url, apiKey: "wrong-key-123" });
    await expect(intruder.get(["users", "bob", "notes"], "secret")).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
