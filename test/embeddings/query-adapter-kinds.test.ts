/**
 * One query adapter per kind of memory: facts searches (a plain search, the
 * preload's facts, the memory tools) go through the facts adapter, episode
 * searches (searchEpisodes and everything built on it) through the episodes
 * adapter, whose weights are the ones shipped before the split.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { adaptQueryVector, bundledQueryAdapter } from "../../src/embeddings/query-adapter.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { InvalidArgumentError } from "../../src/errors.js";
import { searchEpisodes } from "../../src/episodes/search.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import type { MemorySearchOperation } from "../../src/store/operations.js";
import { makeRemote } from "../server/remote-factory.js";

const use = new UniversalSentenceEncoderEmbeddings();
const NS = ["memories", "u"];
const FACT = "User lives in Lisbon.";
const QUESTION = "which city is she in?";

/** sha256 of the episodes adapter's U then V (float32): the weights every search used before the split. */
const EPISODES_WEIGHTS_SHA256 = "dc994de1290e55905057b74fe325f29d68c17a08e4787d28f6be52e448c1fd4f";
const weightsHash = (kind: "facts" | "episodes") => {
  const a = bundledQueryAdapter(kind);
  const h = createHash("sha256");
  for (const m of [a.u, a.v]) h.update(Buffer.from(Float32Array.from(m).buffer));
  return h.digest("hex");
};

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** The cosine a search for QUESTION through `kind` (none: the plain query) gives FACT. */
async function expectedScore(kind: "facts" | "episodes" | undefined): Promise<number> {
  const q = await use.embedQuery(QUESTION);
  const [f] = await use.embedDocuments([FACT]);
  return dot(kind ? adaptQueryVector(use, q, kind) : q, f!);
}

const search = (queryAdapter?: MemorySearchOperation["queryAdapter"]): MemorySearchOperation => ({
  namespacePrefix: NS,
  query: QUESTION,
  limit: 1,
  offset: 0,
  retrieval: "vector",
  ...(queryAdapter === undefined ? {} : { queryAdapter }),
});

async function withStore(options: { queryAdapter?: boolean }, fn: (store: HNSWStore) => Promise<void>): Promise<void> {
  const store = new HNSWStore({ index: { dims: 512, embeddings: use, fields: ["text"], ...options } });
  try {
    await store.put(NS, "city", { text: FACT });
    await fn(store);
  } finally {
    await store.close();
  }
}

describe("query adapters per kind of memory", () => {
  it("the episodes adapter is the one shipped before the split; the facts adapter is another", () => {
    expect(weightsHash("episodes")).toBe(EPISODES_WEIGHTS_SHA256);
    expect(weightsHash("facts")).not.toBe(EPISODES_WEIGHTS_SHA256);
    expect(bundledQueryAdapter()).toBe(bundledQueryAdapter("facts"));
  });

  it("one batch: facts and episodes searches of the same text use different adapted vectors, never one shared walk", async () => {
    await withStore({}, async (store) => {
      const [plain, byDefault, yes, facts, episodes] = (await store.batch([search(false), search(), search(true), search("facts"), search("episodes")])).map((r) => r[0]!.score!);
      const [f, e, none] = [await expectedScore("facts"), await expectedScore("episodes"), await expectedScore(undefined)];
      expect(facts).toBeCloseTo(f, 5);
      expect(byDefault).toBe(facts);
      expect(yes).toBe(facts);
      expect(episodes).toBeCloseTo(e, 5);
      expect(plain).toBeCloseTo(none, 5);
      expect(Math.abs(facts - episodes)).toBeGreaterThan(1e-3);
      // Either order in a batch gives each search its own vector.
      const [e2, f2] = (await store.batch([search("episodes"), search("facts")])).map((r) => r[0]!.score!);
      expect([e2, f2]).toEqual([episodes, facts]);
    });
  });

  it("index.queryAdapter: false turns every adapter off, whatever a search asks", async () => {
    await withStore({ queryAdapter: false }, async (store) => {
      const none = await expectedScore(undefined);
      for (const kind of [undefined, true, "facts", "episodes"] as const) {
        expect((await store.batch([search(kind)]))[0][0]!.score).toBeCloseTo(none, 5);
      }
    });
  });

  it("searchEpisodes asks for the episodes adapter in both of its searches", async () => {
    await withStore({}, async (store) => {
      const ns = ["episodes", "u"];
      await recordEpisodes({ store, namespace: ns, threadId: "t", now: "2026-11-20T10:00:00Z", messages: [{ role: "user", content: "I moved to Lisbon in May" }, { role: "assistant", content: "How do you like it?" }] });
      const seen: Operation[] = [];
      const spy = new Proxy(store, {
        get: (target, prop) => (prop === "batch" ? (ops: Operation[]) => (seen.push(...ops), target.batch(ops)) : Reflect.get(target, prop, target)),
      }) as BaseStore;
      const [hit] = await searchEpisodes(spy, ns, { query: "where does she live now?", limit: 1 });
      expect(hit?.text).toContain("Lisbon");
      const searches = seen.filter((op): op is MemorySearchOperation => "namespacePrefix" in op);
      expect(searches).toHaveLength(2);
      expect(searches.map((s) => s.queryAdapter)).toEqual(["episodes", "episodes"]);
    });
  });

  it("refuses a queryAdapter that is neither a boolean nor a kind, by name, before anything in the batch happens", async () => {
    await withStore({}, async (store) => {
      const message = /queryAdapter must be a boolean, "facts" or "episodes", got "people"/;
      await expect(store.search(NS, { query: "x", queryAdapter: "people" as never })).rejects.toThrow(InvalidArgumentError);
      await expect(store.search(NS, { query: "x", queryAdapter: "people" as never })).rejects.toThrow(message);
      const put = { namespace: NS, key: "new", value: { text: "Has a dog" } };
      await expect(store.batch([put, { ...search(), queryAdapter: "people" as never }])).rejects.toThrow(message);
      await expect(store.batch([put, { ...search(), queryAdapter: 1 as never }])).rejects.toThrow(InvalidArgumentError);
      expect(await store.get(NS, "new")).toBeNull();
    });
  });

  it("RemoteStore sends the kind to the memory server (query_adapter), which ranks with it; a bad value comes back as the store's named error", async () => {
    const r = await makeRemote({
      dims: 512,
      backend: async () => {
        const store = new HNSWStore({ index: { dims: 512, embeddings: use, fields: ["text"] } });
        return { store, cleanup: () => store.close() };
      },
    });
    const bodies: string[] = [];
    const { RemoteStore } = await import("../../src/store/remote/remote-store.js");
    const { API_KEY } = await import("../server/support.js");
    const remote = new RemoteStore({ url: r.url, apiKey: API_KEY, fetch: (input, init) => (bodies.push(String(init?.body)), fetch(input, init)) });
    try {
      await remote.put(NS, "city", { text: FACT });
      const viaServer = (await remote.batch([search("episodes"), search("facts")])).map((x) => x[0]!.score!);
      expect(viaServer[0]).toBeCloseTo(await expectedScore("episodes"), 5);
      expect(viaServer[1]).toBeCloseTo(await expectedScore("facts"), 5);
      const sent = (JSON.parse(bodies.at(-1)!) as { operations: { query_adapter?: unknown }[] }).operations.map((o) => o.query_adapter);
      expect(sent).toEqual(["episodes", "facts"]);
      const single = await remote.search(NS, { query: QUESTION, limit: 1, retrieval: "vector", queryAdapter: "episodes" });
      expect(single[0]!.score).toBe(viaServer[0]);
      const err = await remote.batch([{ namespace: NS, key: "new", value: { text: "Has a dog" } }, { ...search(), queryAdapter: "people" as never }]).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).name).toBe("InvalidArgumentError");
      expect((err as Error).message).toMatch(/queryAdapter must be a boolean, "facts" or "episodes"/);
      expect(await remote.get(NS, "new")).toBeNull();
    } finally {
      await r.cleanup();
    }
  });
});
