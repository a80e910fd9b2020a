/**
 * memoryMiddleware under the real `createAgent` from langchain, with a real
 * SQLite checkpointer and real stores (HNSWStore on a temp directory, and
 * InMemoryStore). There is no LLM on these machines: the agent's model and the
 * extractor's model are ScriptedChatModel, a scripted TEST DOUBLE that can
 * emit tool calls; embeddings are FakeEmbeddings (TEST DOUBLE, bag of words).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { z } from "zod";
import { memoryMiddleware } from "../../src/agent/index.js";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { InvalidArgumentError, MissingConfigError, StoreClosedError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { storeFactories, type StoreCase } from "../graph/stores.js";
import { withStoreAndThreads } from "../graph/store-fixture.js";

const NS = ["users", "{user_id}"];
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const systemText = (msgs: BaseMessage[]) => msgs.filter((m) => m.getType() === "system").map(text).join("\n");
const call = (id: string, name: string, args: Record<string, unknown>) => new AIMessage({ content: "", tool_calls: [{ id, name, args }] });
const quietLogger = { warn: () => {}, error: () => {} } as never;

describe.each(storeFactories())("memoryMiddleware in createAgent over $name", (factory) => {
  let c: StoreCase;
  let dir: string;
  let checkpointer: SqliteSaver;
  withStoreAndThreads(factory, "agent-mw-", (fx) => ({ c, dir, checkpointer } = fx));

  it("preload + extraction: monday's fact reaches friday's thread of the same user (context user_id), not user 7; no checkpoint holds the block", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User is vegetarian."]'], fallback: "[]" }), structuredOutput: false, logger: quietLogger });
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: "You are a helpful cook.",
      checkpointer,
      store: c.store,
      middleware: [memoryMiddleware({ namespace: NS, store: c.store, extract: extractor })],
    });
    await agent.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, { configurable: { thread_id: "monday" }, context: { user_id: "42" } });
    expect((await c.store.search(["users", "42"], { limit: 10 })).map((i) => i.value.text)).toEqual(["User is vegetarian."]); // afterAgent extracted

    await agent.invoke({ messages: [new HumanMessage("What should I cook tonight?")] }, { configurable: { thread_id: "friday" }, context: { user_id: "42" } });
    const friday = model.calls[model.calls.length - 1];
    const systems = friday.filter((m) => m.getType() === "system");
    expect(systems).toHaveLength(1); // one system message: the prompt's block, then one memory block
    const blocks = systems[0].content as Array<{ type: string; text: string }>;
    expect(blocks.map((b) => b.type)).toEqual(["text", "text"]);
    expect(blocks[0].text).toBe("You are a helpful cook.");
    expect(blocks[1].text.startsWith(`${MEMORY_CONTEXT_HEADER}\n`)).toBe(true);
    expect(blocks[1].text).toContain("- User is vegetarian.");
    expect(friday.filter((m) => m.getType() === "human").map(text)).toEqual(["What should I cook tonight?"]);

    await agent.invoke({ messages: [new HumanMessage("What should I cook tonight?")] }, { configurable: { thread_id: "seven" }, context: { user_id: "7" } });
    expect(systemText(model.calls[model.calls.length - 1])).not.toContain("vegetarian");

    for (const thread of ["monday", "friday", "seven"]) {
      const state = (await agent.getState({ configurable: { thread_id: thread } })) as unknown as { values: { messages: BaseMessage[] } };
      expect((state.values.messages as BaseMessage[]).map((m) => m.getType())).toEqual(["human", "ai"]);
      for await (const tuple of checkpointer.list({ configurable: { thread_id: thread } })) {
        expect(JSON.stringify(tuple.checkpoint)).not.toContain(MEMORY_CONTEXT_HEADER);
      }
    }
  });

  it("debounced extraction: the reply does not wait; another thread of the same user starts the queued write and sees it", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User lives in Porto."]'], fallback: "[]" }), structuredOutput: false, logger: quietLogger });
    const agent = createAgent({
      model,
      tools: [],
      checkpointer,
      store: c.store,
      middleware: [memoryMiddleware({ namespace: NS, extract: { extractor, debounceSeconds: 30 } })],
    });
    await agent.invoke({ messages: [new HumanMessage("I live in Porto")] }, { configurable: { thread_id: "a" }, context: { user_id: "42" } });
    expect(await c.store.search(["users", "42"], { limit: 10 })).toHaveLength(0); // queued for 30 s, the reply did not wait
    await agent.invoke({ messages: [new HumanMessage("Where do I live?")] }, { configurable: { thread_id: "b" }, context: { user_id: "42" } });
    expect(systemText(model.calls[1])).toContain("User lives in Porto.");
    await extractor.flush();
  });

  it("postload: remember → ToolMessage → answer; list_memories and search_memory find it in another thread; store from createAgent({ store }); user_id from configurable", async () => {
    const model = new ScriptedChatModel({
      turns: [
        call("c1", "remember", { content: "User has a dog named Rex", key: "pet" }),
        "I'll remember Rex.",
        call("c2", "list_memories", {}),
        "You have a dog named Rex.",
        call("c3", "search_memory", { query: "dog" }),
        "Rex.",
      ],
    });
    const agent = createAgent({ model, tools: [], checkpointer, store: c.store, middleware: [memoryMiddleware({ namespace: NS, mode: "postload" })] });
    expect(model.boundToolNames).toEqual([]); // bound per call
    const first = await agent.invoke({ messages: [new HumanMessage("I got a dog, Rex")] }, { configurable: { thread_id: "t1", user_id: "42" } });
    expect(first.messages.map((m: BaseMessage) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(text(first.messages[2])).toBe("Saved memory [pet].");
    expect(model.boundToolNames).toEqual(["search_memory", "list_memories", "remember", "forget"]);
    expect((await c.store.get(["users", "42"], "pet"))?.value).toEqual({ text: "User has a dog named Rex", source: "tool" });

    const second = await agent.invoke({ messages: [new HumanMessage("What pets do I have?")] }, { configurable: { thread_id: "t2", user_id: "42" } });
    expect(text(second.messages[2])).toMatch(/^Memories 1-1 of 1, newest first:\n- \[pet\] User has a dog named Rex/);
    const third = await agent.invoke({ messages: [new HumanMessage("dog?")] }, { configurable: { thread_id: "t3", user_id: "42" } });
    expect(text(third.messages[2])).toContain("[pet] User has a dog named Rex");
    expect(model.calls.every((msgs) => !systemText(msgs).includes(MEMORY_CONTEXT_HEADER))).toBe(true); // postload only
  });

  it("a missing user id fails the run with MissingConfigError before the model is called, in every mode", async () => {
    for (const mode of ["preload", "postload", "both", "none"] as const) {
      const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
      const agent = createAgent({ model, tools: [], checkpointer, store: c.store, middleware: [memoryMiddleware({ namespace: NS, mode })] });
      await expect(agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: `t-${mode}` } })).rejects.toThrow(MissingConfigError);
      await expect(agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: `u-${mode}` }, context: {} })).rejects.toThrow(/user_id/);
      expect(model.calls).toHaveLength(0);
    }
  });

  it("tool errors: a model mistake becomes an error ToolMessage (memory tools and yours); a configuration error inside a tool fails the run", async () => {
    const weather = tool(async () => { throw new Error("weather service down"); }, { name: "weather", description: "weather", schema: z.object({}) });
    const model = new ScriptedChatModel({
      turns: [new AIMessage({ content: "", tool_calls: [{ id: "a", name: "forget", args: { key: "nope" } }, { id: "b", name: "weather", args: {} }] }), "Sorry."],
    });
    const agent = createAgent({ model, tools: [weather], checkpointer, store: c.store, middleware: [memoryMiddleware({ namespace: NS, store: c.store, mode: "postload" })] });
    const out = await agent.invoke({ messages: [new HumanMessage("forget nope")] }, { configurable: { thread_id: "t1" }, context: { user_id: "42" } });
    const tools = out.messages.filter((m: BaseMessage) => m.getType() === "tool") as ToolMessage[];
    expect(tools.map((m) => m.status)).toEqual(["error", "error"]);
    expect(text(tools[0])).toContain("no memory with key nope");
    expect(text(tools[1])).toContain("weather service down");
    expect(text(out.messages[out.messages.length - 1])).toBe("Sorry.");

    // The shared scope needs org_id, which this run lacks: search_memory's MissingConfigError must fail the run.
    const model2 = new ScriptedChatModel({ turns: [call("s", "search_memory", { query: "hours" })], fallback: "should not be reached" });
    const agent2 = createAgent({
      model: model2,
      tools: [],
      checkpointer,
      store: c.store,
      middleware: [memoryMiddleware({ namespace: NS, store: c.store, mode: "postload", memoryTools: { sharedNamespace: ["orgs", "{org_id}"] } })],
    });
    await expect(agent2.invoke({ messages: [new HumanMessage("hours?")] }, { configurable: { thread_id: "t2" }, context: { user_id: "42" } })).rejects.toThrow(MissingConfigError);
    expect(model2.calls).toHaveLength(1);
  });

  it("{langgraph_auth_user_id}: the server's authenticated user (configurable), never a client's context value", async () => {
    await c.store.put(["users", "auth-1"], "diet", { text: "User is vegan" });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const agent = createAgent({ model, tools: [], checkpointer, store: c.store, middleware: [memoryMiddleware({ namespace: ["users", "{langgraph_auth_user_id}"], store: c.store })] });
    await agent.invoke({ messages: [new HumanMessage("dinner?")] }, { configurable: { thread_id: "t1", langgraph_auth_user_id: "auth-1" } });
    expect(systemText(model.calls[0])).toContain("User is vegan");
    await expect(
      agent.invoke({ messages: [new HumanMessage("dinner?")] }, { configurable: { thread_id: "t2" }, context: { langgraph_auth_user_id: "auth-1" } as never }),
    ).rejects.toThrow(MissingConfigError);
  });

  it("preload options: limit, maxTokens, queryBuilder and a read-only shared namespace behave as in callModel", async () => {
    for (let i = 0; i < 8; i++) await c.store.put(["users", "42"], `m${i}`, { text: `User fact number ${i} about cooking` });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const queries: string[] = [];
    const agent = createAgent({
      model,
      tools: [],
      checkpointer,
      store: c.store,
      middleware: [
        memoryMiddleware({
          namespace: NS,
          store: c.store,
          limit: 3,
          queryBuilder: (state) => {
            queries.push(text(state.messages[state.messages.length - 1]));
            return "cooking";
          },
        }),
      ],
    });
    await agent.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: "t1" }, context: { user_id: "42" } });
    expect(queries).toEqual(["hello"]);
    expect(systemText(model.calls[0]).split("\n").filter((l) => l.startsWith("- "))).toHaveLength(3);

    const tight = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const budget = createAgent({ model: tight, tools: [], checkpointer, middleware: [memoryMiddleware({ namespace: NS, store: c.store, maxTokens: 80 })] });
    await budget.invoke({ messages: [new HumanMessage("cooking")] }, { configurable: { thread_id: "t2" }, context: { user_id: "42" } });
    const lines = systemText(tight.calls[0]).split("\n").filter((l) => l.startsWith("- "));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(5);
  });
});

describe("memoryMiddleware with HNSWStore specifics", () => {
  it("a closed store fails the run from a memory tool instead of becoming a ToolMessage", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-mw-closed-"));
    const store = new HNSWStore({ path: join(dir, "mem"), index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
    await store.put(["users", "42"], "x", { text: "User likes tea" });
    await store.close();
    const model = new ScriptedChatModel({ turns: [call("c", "search_memory", { query: "tea" })], fallback: "should not be reached" });
    const agent = createAgent({ model, tools: [], middleware: [memoryMiddleware({ namespace: NS, store, mode: "postload" })] });
    await expect(agent.invoke({ messages: [new HumanMessage("tea?")] }, { context: { user_id: "42" } })).rejects.toThrow(StoreClosedError);
    await rm(dir, { recursive: true, force: true });
  });

  it("preload on a closed store fails the run: langchain's MiddlewareError, with StoreClosedError as its cause", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-mw-closed-pre-"));
    const store = new HNSWStore({ path: join(dir, "mem"), index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
    await store.put(["users", "42"], "x", { text: "User likes tea" });
    await store.close();
    const model = new ScriptedChatModel({ turns: [], fallback: "should not be reached" });
    const agent = createAgent({ model, tools: [], middleware: [memoryMiddleware({ namespace: NS, store })] });
    const error = await agent.invoke({ messages: [new HumanMessage("tea?")] }, { context: { user_id: "42" } }).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: unknown },
    );
    expect(error?.name).toBe("StoreClosedError");
    expect(error?.cause).toBeInstanceOf(StoreClosedError);
    expect(model.calls).toHaveLength(0);
    await rm(dir, { recursive: true, force: true });
  });

  it("a system prompt given as content blocks keeps its blocks; the memory block is one more text block", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-mw-blocks-"));
    const store = new HNSWStore({ path: join(dir, "mem"), index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
    try {
      await store.put(["users", "42"], "x", { text: "User likes tea" });
      const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
      const systemPrompt = new SystemMessage({ content: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } } as never] });
      const agent = createAgent({ model, tools: [], systemPrompt, middleware: [memoryMiddleware({ namespace: NS, store })] });
      await agent.invoke({ messages: [new HumanMessage("tea?")] }, { context: { user_id: "42" } });
      const system = model.calls[0][0];
      const blocks = system.content as Array<{ type: string; text: string; cache_control?: unknown }>;
      expect(blocks).toHaveLength(2);
      expect(blocks[0]).toEqual({ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } });
      expect(blocks[1].text.startsWith(MEMORY_CONTEXT_HEADER)).toBe(true);
      expect(blocks[1].text).toContain("User likes tea");
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects bad options, and a run with no store at all", async () => {
    expect(() => memoryMiddleware({ namespace: [] })).toThrow(/namespace/);
    expect(() => memoryMiddleware({ namespace: NS, mode: "always" as never })).toThrow(InvalidArgumentError);
    expect(() => memoryMiddleware({ namespace: NS, limit: -1 })).toThrow(/limit/);
    const agent = createAgent({ model: new ScriptedChatModel({ turns: [], fallback: "ok" }), tools: [], middleware: [memoryMiddleware({ namespace: NS })] });
    await expect(agent.invoke({ messages: [new HumanMessage("hi")] }, { context: { user_id: "1" } })).rejects.toThrow(/no store/);
  });
});
