/**
 * Episodic memory tests: turns recorded incrementally, searched (function,
 * tool, preload), neighbours returned, erased. Over InMemoryStore and
 * HNSWStore (temp dir). Embeddings: FakeEmbeddings (TEST DOUBLE, bag of
 * words), since meaning is not under test; the chat model is ScriptedChatModel
 * (TEST DOUBLE). Threads are checkpointed in a real SQLite file.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { recordEpisodes } from "../../src/episodes/record.js";
import { searchEpisodes } from "../../src/episodes/search.js";
import { forgetEpisodes } from "../../src/episodes/forget.js";
import { writeEpisodes } from "../../src/episodes/write-episodes.js";
import { createSearchConversationsTool } from "../../src/episodes/tool.js";
import { episodeCursorNamespace, episodeKey, type EpisodeValue } from "../../src/episodes/episode.js";
import { EPISODES_SECTION_HEADER } from "../../src/episodes/format.js";
import { callModel } from "../../src/graph/call-model.js";
import { withMemory } from "../../src/graph/with-memory.js";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { InvalidArgumentError, MissingConfigError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { storeFactories, type StoreCase } from "../graph/stores.js";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const NS = ["episodes", "u1"];
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

const lisbon: BaseMessage[] = [
  new HumanMessage({ id: "h1", content: "I'm planning a trip to Lisbon in May." }),
  new AIMessage({ id: "a1", content: "Lovely! Do you want tips on the Alfama district?" }),
  new HumanMessage({ id: "h2", content: "Yes please, and where to eat pastel de nata." }),
  new AIMessage({ id: "a2", content: "Try Manteigaria near Chiado." }),
];

describe.each(storeFactories())("episodes over $name", (factory) => {
  let c: StoreCase;
  beforeEach(async () => {
    c = await factory.make();
  });
  afterEach(async () => {
    await c.cleanup();
  });

  it("records each turn once, incrementally, with speaker, thread, turn and date, one embedding per turn", async () => {
    const first = await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon.slice(0, 2), now: "2024-03-02T10:00:00Z" });
    expect(first).toEqual([episodeKey("t1", 0), episodeKey("t1", 1)]);
    const embedded = c.embeddings.documentCalls.flat().length;
    // The same thread again, with two new messages plus a tool exchange: only the new turns are written.
    const more = [
      ...lisbon,
      new AIMessage({ id: "a3", content: "", tool_calls: [{ id: "c1", name: "search_memory", args: { query: "x" } }] }),
      new ToolMessage({ id: "t3", content: "nothing", tool_call_id: "c1" }),
    ];
    const second = await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: more, now: "2024-03-09T10:00:00Z", speakers: { user: "Ana" } });
    expect(second).toEqual([episodeKey("t1", 2), episodeKey("t1", 3)]);
    expect(await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: more })).toEqual([]);
    // Only the two new turns were embedded the second time, one text each (said).
    expect(c.embeddings.documentCalls.flat().length - embedded).toBe(2);

    const v = (await c.store.get(NS, episodeKey("t1", 2)))!.value as EpisodeValue;
    expect(v).toMatchObject({ text: "Yes please, and where to eat pastel de nata.", speaker: "Ana", role: "user", threadId: "t1", turn: 2, date: "2024-03-09", kind: "episode" });
    expect(v.context).toBeUndefined();
    expect(v.said).toBe("Ana: Yes please, and where to eat pastel de nata.");
    // The cursor lives outside the episode namespace.
    expect(await c.store.get(episodeCursorNamespace(NS), "t1")).not.toBeNull();
    expect((await c.store.search(NS, { limit: 100 })).length).toBe(4);
  });

  it("a rewritten thread is recorded again from the start under the same keys", async () => {
    await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon });
    const rewritten = [new HumanMessage({ id: "x1", content: "Actually I am going to Porto." }), new AIMessage({ id: "x2", content: "Porto is great." })];
    expect(await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: rewritten })).toEqual([episodeKey("t1", 0), episodeKey("t1", 1)]);
    expect(((await c.store.get(NS, episodeKey("t1", 0)))!.value as EpisodeValue).text).toBe("Actually I am going to Porto.");
  });

  it("finds the answering turn by the topic of the turn before it, and returns its neighbours", async () => {
    await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon, now: "2024-03-02T10:00:00Z" });
    await recordEpisodes({
      store: c.store,
      namespace: NS,
      threadId: "t2",
      now: "2024-04-01T10:00:00Z",
      messages: [
        new HumanMessage({ id: "g1", content: "I need a break from work, honestly." }),
        new AIMessage({ id: "g2", content: "Are you still playing Civilization in the evenings?" }),
        new HumanMessage({ id: "g3", content: "Been playing it for a month now." }),
        new AIMessage({ id: "g4", content: "A month already, nice." }),
      ],
    });
    // "Civilization" is only in the turn before the answer; the answer is scored with its neighbours.
    const hits = await searchEpisodes(c.store, NS, { query: "how long has the user been playing Civilization?", limit: 3, neighbours: true });
    const answer = hits.find((h) => h.key === episodeKey("t2", 2));
    expect(answer).toBeDefined();
    expect(answer).toMatchObject({ threadId: "t2", turn: 2, date: "2024-04-01", text: "Been playing it for a month now." });
    expect(answer!.before).toEqual({ speaker: "assistant", text: "Are you still playing Civilization in the evenings?" });
    expect(answer!.after).toEqual({ speaker: "assistant", text: "A month already, nice." });
    // The first turn of a thread has no turn before it.
    const first = await searchEpisodes(c.store, NS, { query: "trip to Lisbon in May", limit: 1, neighbours: true, threadId: "t1", rerank: false });
    expect(first[0]!.key).toBe(episodeKey("t1", 0));
    expect(first[0]!.before).toBeUndefined();
    expect(first[0]!.after?.text).toContain("Alfama");
    // Thread filter.
    expect((await searchEpisodes(c.store, NS, { query: "playing Civilization", limit: 5, threadId: "t1" })).every((h) => h.threadId === "t1")).toBe(true);
  });

  it("search_conversations returns the user's turns with date, thread and neighbours; never another user's", async () => {
    await recordEpisodes({ store: c.store, namespace: ["episodes", "u1"], threadId: "t1", messages: lisbon, now: "2024-03-02T10:00:00Z" });
    await recordEpisodes({ store: c.store, namespace: ["episodes", "u2"], threadId: "t9", messages: [new HumanMessage("My Lisbon trip secret")] });
    const t = createSearchConversationsTool({ namespace: ["episodes", "{user_id}"], store: c.store });
    const out = String(await t.invoke({ query: "Lisbon trip", limit: 4 }, { configurable: { user_id: "u1" } }));
    expect(out).toContain("[2024-03-02, thread t1] user: I'm planning a trip to Lisbon in May.");
    expect(out).toContain("(after) assistant: Lovely!");
    expect(out).not.toContain("secret");
    await expect(t.invoke({ query: "Lisbon" }, { configurable: {} })).rejects.toBeInstanceOf(MissingConfigError);
  });

  it("callModel preloads relevant past turns, marked with date and thread, within the token budget; postload binds search_conversations", async () => {
    await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon, now: "2024-03-02T10:00:00Z" });
    const model = new ScriptedChatModel({ turns: ["ok", "ok"] });
    const node = callModel({ model, namespace: ["users", "{user_id}"], store: c.store, episodes: { preloadLimit: 2 } });
    await node({ messages: [new HumanMessage("what was that pastel de nata place?")] }, { configurable: { user_id: "u1", thread_id: "t5" } });
    const mem = model.calls[0]!.map(text).find((m) => m.startsWith(MEMORY_CONTEXT_HEADER))!;
    expect(mem).toContain(EPISODES_SECTION_HEADER);
    expect(mem).toContain("- [2024-03-02, thread t1] user: Yes please, and where to eat pastel de nata.");
    expect(mem.split("\n").filter((l) => l.startsWith("- [")).length).toBeLessThanOrEqual(2);

    const tight = callModel({ model, namespace: ["users", "{user_id}"], store: c.store, episodes: {}, maxTokens: 60 });
    await tight({ messages: [new HumanMessage("pastel de nata")] }, { configurable: { user_id: "u1" } });
    const small = model.calls[1]!.map(text).find((m) => m.startsWith(MEMORY_CONTEXT_HEADER));
    expect(small === undefined || Math.ceil(small.length / 4) <= 60).toBe(true);

    const post = new ScriptedChatModel({ turns: ["ok"] });
    callModel({ model: post, namespace: ["users", "{user_id}"], store: c.store, mode: "postload", episodes: {} });
    expect(post.boundToolNames).toContain("search_conversations");
    expect(() => callModel({ model: post, namespace: ["users", "{user_id}"], episodes: { preloadLimit: -1 } })).toThrow(InvalidArgumentError);
  });

  it("forgetEpisodes erases a person's turns and cursors, and no one else's", async () => {
    await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon });
    await recordEpisodes({ store: c.store, namespace: ["episodes", "u2"], threadId: "t1", messages: lisbon });
    expect(await forgetEpisodes(c.store, NS)).toBe(4);
    expect(await c.store.search(NS, { limit: 10 })).toEqual([]);
    expect(await c.store.search(episodeCursorNamespace(NS), { limit: 10 })).toEqual([]);
    expect(await searchEpisodes(c.store, NS, { query: "Lisbon" })).toEqual([]);
    expect((await c.store.search(["episodes", "u2"], { limit: 10 })).length).toBe(4);
    // Recording after erasure starts afresh from turn 0.
    expect(await recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon.slice(0, 1) })).toEqual([episodeKey("t1", 0)]);
  });

  it("rejects bad input with named errors and writes nothing", async () => {
    await expect(recordEpisodes({ store: c.store, namespace: [], threadId: "t1", messages: lisbon })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(recordEpisodes({ store: c.store, namespace: NS, threadId: "", messages: lisbon })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(recordEpisodes({ store: c.store, namespace: NS, threadId: "t1", messages: lisbon, now: "not a date" })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(searchEpisodes(c.store, NS, { query: "x", limit: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    for (const bad of [{ window: 1000 }, { window: 1.5 }, { replyWeight: -1 }, { replyWeight: Number.NaN }, { minWords: -2 }, { speakerBoost: 0 }, { sessionDecay: 1.5 }, { k: Infinity }]) {
      await expect(searchEpisodes(c.store, NS, { query: "x", ...bad })).rejects.toThrow(/searchEpisodes (window|replyWeight|minWords|speakerBoost|sessionDecay|k) must be/);
    }
    expect(await c.store.search(NS, { limit: 10 })).toEqual([]);
  });
});

describe("writeEpisodes and withMemory record turns", () => {
  let dir: string;
  let c: StoreCase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "episodes-graph-"));
    c = await storeFactories().at(-1)!.make();
  });
  afterEach(async () => {
    await c.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("withMemory records each run's new turns, and a later thread can search them", async () => {
    const checkpointer = SqliteSaver.fromConnString(join(dir, "threads.sqlite"));
    const model = new ScriptedChatModel({
      turns: [
        "Congratulations on the new job!",
        new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search_conversations", args: { query: "new job Fernhill" } }] }),
        (msgs) => `Found: ${text(msgs[msgs.length - 1]!)}`,
      ],
    });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, mode: "postload", namespace: ["users", "{user_id}"], store: c.store, episodes: {} }).compile({
      checkpointer,
      store: c.store,
    });
    await graph.invoke({ messages: [new HumanMessage("I started a new job at Fernhill today")] }, { configurable: { user_id: "u1", thread_id: "job" } });
    const turns = await c.store.search(["episodes", "u1"], { limit: 10 });
    expect(turns.map((t) => (t.value as EpisodeValue).text).sort()).toEqual(["Congratulations on the new job!", "I started a new job at Fernhill today"]);

    const out = await graph.invoke({ messages: [new HumanMessage("when did I start at Fernhill?")] }, { configurable: { user_id: "u1", thread_id: "later" } });
    const last = text(out.messages[out.messages.length - 1]!);
    expect(last).toContain("thread job] user: I started a new job at Fernhill today");
    // Both runs' turns are now episodes (the tool call message has no text and is not a turn).
    expect((await c.store.search(["episodes", "u1"], { limit: 20 })).length).toBe(4);
    await expect(
      graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "x" } }),
    ).rejects.toBeInstanceOf(MissingConfigError);
  });

  it("writeEpisodes needs a thread id", async () => {
    const node = writeEpisodes({ store: c.store });
    await expect(node({ messages: [new HumanMessage("hi")] }, { configurable: { user_id: "u1" } })).rejects.toBeInstanceOf(MissingConfigError);
    expect(await c.store.search(["episodes", "u1"], { limit: 10 })).toEqual([]);
  });
});

describe("searchEpisodes' second, vector-only first stage (vectorWeight)", () => {
  // The store's hybrid ranking puts "Zanzibar Zanzibar, Ben Ben Ben" first (BM25 on the names, boosted
  // by the question's capitalised words); by vector alone turn 1, which shares the question's form, is closest.
  const turns = [
    { role: "user", content: "Zanzibar!" },
    { role: "assistant", content: "when did you go, when did you go to" },
    { role: "user", content: "The weather was grey all week" },
    { role: "assistant", content: "Zanzibar Zanzibar, Ben Ben Ben" },
  ] as const;
  const q = "When did you say Ben went to Zanzibar?";
  const noNeighbours = { pool: 1, limit: 1, replyWeight: 0, promptWeight: 0, contextWeight: 0, minWords: 0, speakerBoost: 1 };

  it("adds the vector ranking's hits, in the same batch as the hybrid search, one query embedding", async () => {
    const embeddings = new FakeEmbeddings({ dims: 64 });
    const store = new HNSWStore({ index: { dims: 64, embeddings, fields: ["text"] }, embeddingCache: false });
    try {
      await recordEpisodes({ store, namespace: NS, threadId: "t1", speakers: { user: "Ana", assistant: "Ben" }, messages: [...turns] });
      expect((await store.search(NS, { query: q, limit: 1 }))[0]!.key).toBe(episodeKey("t1", 3));
      expect((await store.search(NS, { query: q, limit: 1, retrieval: "vector" }))[0]!.key).toBe(episodeKey("t1", 1));
      const batches: unknown[][] = [];
      const batch = store.batch.bind(store);
      store.batch = ((ops: never) => (batches.push(ops), batch(ops))) as typeof store.batch;
      const calls = embeddings.queryCalls.length;
      expect((await searchEpisodes(store, NS, { query: q, ...noNeighbours, vectorWeight: 0 })).map((e) => e.key)).toEqual([episodeKey("t1", 3)]);
      expect(batches.at(-1)).toHaveLength(1);
      // The default weight: two searches in one batch, the hybrid one's first hit still first.
      expect((await searchEpisodes(store, NS, { query: q, ...noNeighbours })).map((e) => e.key)).toEqual([episodeKey("t1", 3)]);
      expect((batches.at(-1) as Array<{ retrieval?: string }>).map((op) => op.retrieval)).toEqual([undefined, "vector"]);
      expect(embeddings.queryCalls.length - calls).toBe(2); // one per searchEpisodes call
      // A heavier vector side brings in, and puts first, a turn only it found (the hybrid pool is 1 turn).
      expect((await searchEpisodes(store, NS, { query: q, ...noNeighbours, vectorWeight: 3 })).map((e) => e.key)).toEqual([episodeKey("t1", 1)]);
      await expect(searchEpisodes(store, NS, { query: q, vectorWeight: -1 })).rejects.toThrow(/searchEpisodes vectorWeight must be/);
    } finally {
      await store.close();
    }
  });

  it("on a store that ignores a search's own retrieval, leaves the order as it was", async () => {
    const store = new InMemoryStore({ index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
    await recordEpisodes({ store, namespace: NS, threadId: "t1", speakers: { user: "Ana", assistant: "Ben" }, messages: [...turns] });
    const keys = async (vectorWeight: number) => (await searchEpisodes(store, NS, { query: q, limit: 4, vectorWeight })).map((e) => e.key);
    expect(await keys(0.5)).toEqual(await keys(0));
  });
});
