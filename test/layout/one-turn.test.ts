/**
 * One scope per turn: with facts and episodes preloaded, a turn embeds its
 * query ONCE (the first reads of both kinds go to the store as one batch),
 * on withMemory and on the createAgent middleware; and the block's opening
 * sentence names what it holds. Real HNSWStore on disk (its embedding cache
 * off, so every query embedding reaches the embedder); FakeEmbeddings and
 * ScriptedChatModel are TEST DOUBLES (bag of words; a scripted model).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { withMemory } from "../../src/graph/with-memory.js";
import { memoryMiddleware } from "../../src/agent/memory-middleware.js";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { sharedFirstRound } from "../../src/scope/shared-round.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function seeded(options: { facts: boolean }) {
  const dir = await mkdtemp(join(tmpdir(), "one-turn-"));
  dirs.push(dir);
  const embeddings = new FakeEmbeddings({ dims: 32 });
  const store = new HNSWStore({ path: dir, index: { dims: 32, embeddings, fields: ["text", "said"] }, embeddingCache: false });
  if (options.facts) await store.put(["users", "42"], "tea", { text: "User drinks green tea every morning." });
  await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "old", messages: [{ role: "user", content: "I switched to green tea last week." }, { role: "assistant", content: "Nice." }] });
  return { store, embeddings };
}

const systemText = (msgs: BaseMessage[]) => msgs.filter((m) => m.getType() === "system").map((m) => String(m.content)).join("\n");

describe("one query embedding per turn", () => {
  it("withMemory with facts and episodes preloaded embeds each turn's query once", async () => {
    const { store, embeddings } = await seeded({ facts: true });
    const model = new ScriptedChatModel({ turns: [], fallback: "Sure." });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: ["users", "{user_id}"], store, episodes: { record: false } }).compile();
    for (const question of ["what tea do I drink?", "when did I switch tea?"]) {
      const before = embeddings.queryCalls.length;
      await graph.invoke({ messages: [new HumanMessage(question)] }, { configurable: { thread_id: "t", user_id: "42" } });
      expect(embeddings.queryCalls.slice(before)).toEqual([question]);
    }
    const shown = systemText(model.calls.at(-1)!);
    expect(shown).toContain("green tea every morning");
    expect(shown).toContain("switched to green tea");
    expect(shown).toContain("facts remembered about the user and past conversation turns with the user");
    await store.close();
  });

  it("the createAgent middleware does the same", async () => {
    const { store, embeddings } = await seeded({ facts: true });
    const model = new ScriptedChatModel({ turns: [], fallback: "Sure." });
    const agent = createAgent({ model, tools: [], middleware: [memoryMiddleware({ namespace: ["users", "{user_id}"], store, episodes: { record: false } })] });
    await agent.invoke({ messages: [{ role: "user", content: "what tea do I drink?" }] }, { context: { user_id: "42" } } as never);
    expect(embeddings.queryCalls).toEqual(["what tea do I drink?"]);
    expect(systemText(model.calls[0]!)).toContain("switched to green tea");
    await store.close();
  });

  it("a block of past turns only does not call them facts", async () => {
    const { store } = await seeded({ facts: false });
    const model = new ScriptedChatModel({ turns: [], fallback: "Sure." });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: ["users", "{user_id}"], store, episodes: { record: false } }).compile();
    await graph.invoke({ messages: [new HumanMessage("when did I switch tea?")] }, { configurable: { thread_id: "t", user_id: "42" } });
    const block = systemText(model.calls[0]!);
    expect(block.startsWith(MEMORY_CONTEXT_HEADER)).toBe(true);
    expect(block).toContain("switched to green tea");
    expect(block).toContain("The following are past conversation turns with the user from earlier conversations.");
    expect(block).not.toMatch(/facts/i);
    await store.close();
  });
});

describe("sharedFirstRound", () => {
  it("sends every participant's first batch as one, later ones alone, and counts a participant that never reads", async () => {
    const { store } = await seeded({ facts: true });
    const batches: number[] = [];
    const orig = store.batch.bind(store);
    (store as unknown as { batch: typeof store.batch }).batch = (async (ops: never) => {
      batches.push((ops as unknown[]).length);
      return orig(ops);
    }) as typeof store.batch;
    const [a, b, c] = await sharedFirstRound<[number, number, string]>(store, [
      async (s: BaseStore) => (await s.search(["users", "42"], { query: "tea" })).length + (await s.search(["users", "42"])).length,
      async (s: BaseStore) => (await s.search(["episodes", "42"], { query: "tea" })).length,
      async () => "no reads",
    ] as never);
    expect([a, b, c]).toEqual([2, 2, "no reads"]);
    expect(batches).toEqual([2, 1]);
    await store.close();
  });
});
