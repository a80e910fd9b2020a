/**
 * The store conformance suite over RemoteStore → memory server → HNSWStore
 * on disk, over real HTTP on 127.0.0.1: once as a trusted service, and once
 * as an end user, whose namespaces the server rewrites under
 * ["users", id] (invisible to the client: the contract holds unchanged).
 */
import { describe, expect, it } from "vitest";
import { describeStoreContract, type ContractFactory, type ContractOptions } from "../conformance/store-contract.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { searchEpisodes } from "../../src/episodes/search.js";
import { makeRemote } from "./remote-factory.js";
import { API_KEY } from "./support.js";

const DIMS = 32;
const caps = { extendedFilters: true, extras: false, batchedEmbedding: true, namespaceDetail: true, searchRetrieval: true };

const factory = (as: "service" | { user: string }, name: string): ContractFactory => ({
  name,
  capabilities: caps,
  make: async (options: ContractOptions = {}) => {
    const r = await makeRemote({ dims: DIMS, fields: options.fields, index: options.index, as });
    return { store: r.store, embeddings: r.embeddings, cleanup: r.cleanup };
  },
});

describeStoreContract(factory("service", "RemoteStore (trusted service) → memory server → HNSWStore on disk"));
describeStoreContract(factory({ user: "u-1" }, "RemoteStore (end user u-1) → memory server → HNSWStore on disk"));

describe("RemoteStore specifics", () => {
  it("one HTTP request per batch, in order; the end user's items land under their root", async () => {
    const r = await makeRemote({ dims: DIMS, as: { user: "u-2" } });
    const seen: string[] = [];
    const counting = new (await import("../../src/store/remote/remote-store.js")).RemoteStore({
      url: r.url,
      headers: { authorization: "Bearer user:u-2" },
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    try {
      const results = await counting.batch([
        { namespace: ["a"], key: "k", value: { text: "one" } },
        { namespace: ["a"], key: "k" },
        { namespace: ["a"], key: "k", value: { text: "two" } },
        { namespace: ["a"], key: "k" },
        { namespacePrefix: ["a"], limit: 10, offset: 0, query: "two" },
        { matchConditions: undefined, limit: 10, offset: 0 },
      ]);
      expect(seen).toEqual([`${r.url}/store/batch`]);
      expect((results[1] as { value: unknown }).value).toEqual({ text: "one" });
      expect((results[3] as { value: unknown }).value).toEqual({ text: "two" });
      expect((results[4] as { score?: number }[])[0].score).toBeGreaterThan(0.9);
      expect(results[5]).toEqual([["a"]]);
      expect((await r.server.get(["users", "u-2", "a"], "k"))!.value).toEqual({ text: "two" });
    } finally {
      await r.cleanup();
    }
  });

  it("searchEpisodes ranks through the server as in process: its vector-only search carries `retrieval` over the wire", async () => {
    const r = await makeRemote({ dims: DIMS });
    const bodies: string[] = [];
    const { RemoteStore } = await import("../../src/store/remote/remote-store.js");
    const remote = new RemoteStore({ url: r.url, apiKey: API_KEY, fetch: (input, init) => (bodies.push(String(init?.body)), fetch(input, init)) });
    try {
      const ns = ["episodes", "u-7"];
      const lines = ["I adopted a cat last week", "What is her name?", "Miso, she is grey", "Cute! Any plans for the weekend?", "A hike near the lake", "Bring water and a map"];
      await recordEpisodes({ store: remote, namespace: ns, threadId: "t1", now: "2026-11-20T10:00:00Z", messages: lines.map((content, i) => ({ role: i % 2 ? "assistant" : "user", content })) });
      const viaServer = await searchEpisodes(remote, ns, { query: "what is the cat called" });
      const inProcess = await searchEpisodes(r.server, ns, { query: "what is the cat called" });
      expect(viaServer.map((e) => [e.key, e.score])).toEqual(inProcess.map((e) => [e.key, e.score]));
      const searches = bodies.flatMap((b) => (JSON.parse(b) as { operations: { op: string; retrieval?: string }[] }).operations).filter((o) => o.op === "search");
      expect(searches.some((o) => o.retrieval === "vector")).toBe(true);
    } finally {
      await r.cleanup();
    }
  });

  it("an unreachable server is a RemoteStoreError with status 0", async () => {
    const r = await makeRemote({ dims: DIMS });
    await r.cleanup();
    const err = await r.store.get(["a"], "k").catch((e) => e);
    expect(err.name).toBe("RemoteStoreError");
    expect(err.status).toBe(0);
  });
});
