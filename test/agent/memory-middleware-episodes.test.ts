/**
 * memoryMiddleware's `episodes` option under the real `createAgent` from
 * langchain, with a real SQLite checkpointer and a real HNSWStore on a temp
 * directory. The agent's model is ScriptedChatModel (scripted TEST DOUBLE);
 * embeddings are FakeEmbeddings (TEST DOUBLE, bag of words).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { memoryMiddleware } from "../../src/agent/index.js";
import { EPISODES_SECTION_HEADER } from "../../src/episodes/format.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { InvalidArgumentError, MissingConfigError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const NS = ["users", "{user_id}"];
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const systemText = (msgs: BaseMessage[]) => msgs.filter((m) => m.getType() === "system").map(text).join("\n");

let dir: string;
let store: HNSWStore;
let checkpointer: SqliteSaver;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-mw-episodes-"));
  store = new HNSWStore({ path: join(dir, "memory"), index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }) } });
  checkpointer = SqliteSaver.fromConnString(join(dir, "threads.sqlite"));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (agent: { invoke: (...a: never[]) => Promise<unknown> }, content: string, thread: string, user = "42") =>
  (agent.invoke as (i: unknown, c: unknown) => Promise<unknown>)({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: thread }, context: { user_id: user } });

describe("memoryMiddleware episodes in createAgent", () => {
  it("records each thread's turns after the agent and preloads the relevant past turns in the next thread, per user", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    const agent = createAgent({ model, tools: [], checkpointer, store, middleware: [memoryMiddleware({ namespace: NS, store, episodes: {} })] });
    await run(agent, "My sister Ana moved to Lisbon last spring", "monday");
    const turns = await store.search(["episodes", "42"], { limit: 10 });
    expect(turns.map((t) => t.value.text).sort()).toEqual(["My sister Ana moved to Lisbon last spring", "Noted."]);
    // No duplicate turns when the same thread continues.
    await run(agent, "She likes the sea", "monday");
    expect(await store.search(["episodes", "42"], { limit: 10 })).toHaveLength(4);

    await run(agent, "Where did my sister Ana move?", "friday");
    const friday = systemText(model.calls.at(-1)!);
    expect(friday).toContain(EPISODES_SECTION_HEADER);
    expect(friday).toContain("My sister Ana moved to Lisbon last spring");

    await run(agent, "Where did my sister Ana move?", "other", "7");
    expect(systemText(model.calls.at(-1)!)).not.toContain("Lisbon");
    expect(await store.listNamespaces({ prefix: ["episode_cursors"] })).toEqual([
      ["episode_cursors", "episodes", "42"],
      ["episode_cursors", "episodes", "7"],
    ]);
  });

  it("the episode section stays within maxTokens; record: false writes no episodes", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    const recorder = createAgent({ model, tools: [], checkpointer, store, middleware: [memoryMiddleware({ namespace: NS, store, episodes: {} })] });
    await run(recorder, "My sister Ana moved to Lisbon last spring", "monday");
    const tight = createAgent({
      model,
      tools: [],
      checkpointer,
      store,
      middleware: [memoryMiddleware({ namespace: NS, store, maxTokens: 40, episodes: { record: false } })],
    });
    await run(tight, "Where did my sister Ana move?", "t");
    expect(systemText(model.calls.at(-1)!)).not.toContain("Lisbon");
    expect(await store.search(["episodes", "42"], { limit: 10 })).toHaveLength(2);

    const roomy = createAgent({
      model,
      tools: [],
      checkpointer,
      store,
      middleware: [memoryMiddleware({ namespace: NS, store, maxTokens: 400, episodes: { record: false } })],
    });
    await run(roomy, "Where did my sister Ana move?", "t2");
    expect(systemText(model.calls.at(-1)!)).toContain("Lisbon");
  });

  it("postload gives the model search_conversations, which finds an earlier thread's turn", async () => {
    const model = new ScriptedChatModel({
      turns: [
        "Noted.",
        new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search_conversations", args: { query: "sister Ana Lisbon" } }] }),
        "She moved to Lisbon.",
      ],
      fallback: "ok",
    });
    const agent = createAgent({ model, tools: [], checkpointer, store, middleware: [memoryMiddleware({ namespace: NS, store, mode: "postload", episodes: {} })] });
    await run(agent, "My sister Ana moved to Lisbon last spring", "monday");
    expect(model.boundToolNames).toContain("search_conversations");
    await run(agent, "Where did Ana move?", "friday");
    const last = model.calls.at(-1)!;
    const toolResult = last.find((m) => m.getType() === "tool");
    expect(toolResult && text(toolResult)).toContain("My sister Ana moved to Lisbon last spring");
    expect(systemText(last)).not.toContain(EPISODES_SECTION_HEADER);
  });

  it("bad episode options fail at construction; a run without the episode template's values fails before the model", async () => {
    expect(() => memoryMiddleware({ namespace: NS, store, episodes: { preloadLimit: -1 } })).toThrow(InvalidArgumentError);
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    const agent = createAgent({
      model,
      tools: [],
      checkpointer,
      store,
      middleware: [memoryMiddleware({ namespace: ["shared"], store, episodes: { namespace: ["episodes", "{user_id}"] } })],
    });
    await expect(
      (agent.invoke as (i: unknown, c: unknown) => Promise<unknown>)({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "x" } }),
    ).rejects.toThrow(MissingConfigError);
    expect(model.calls).toHaveLength(0);
  });
});
