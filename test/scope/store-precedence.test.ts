/**
 * The guarantee that a LangGraph API server (`langgraph dev`, Platform)
 * relies on: every memory component that has a `store` option uses it, even
 * when the runtime injects another store (`compile({ store })`,
 * `createAgent({ store })`, or the server's own index-less InMemoryStore),
 * and it says so once. The runtime's store here is a real InMemoryStore that
 * must stay EMPTY; the option's store is a real HNSWStore (in memory, with
 * FakeEmbeddings, a deterministic TEST DOUBLE embedder). Chat models are
 * ScriptedChatModel, a scripted TEST DOUBLE.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MessagesAnnotation, StateGraph, START, END, MemorySaver } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryMiddleware } from "../../src/agent/index.js";
import { callModel, createMemoryTools, HNSWStore, InvalidArgumentError, MemoryExtractor, MemoryToolNode, resolveStore, withMemory, writeMemory } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";

const NS = ["users", "{user_id}"];
const quiet = { warn: () => {}, error: () => {} } as never;
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const seen = (model: ScriptedChatModel) => model.calls.at(-1)!.map(text).join("\n");
const call = (id: string, name: string, args: Record<string, unknown>) => new AIMessage({ content: "", tool_calls: [{ id, name, args }] });
const extractor = (facts: string[]) =>
  new MemoryExtractor({ model: new ScriptedChatModel({ turns: [JSON.stringify(facts)], fallback: "[]" }), structuredOutput: false, logger: quiet });

/** Every item in a store, as "namespace/…: text". */
async function everything(store: BaseStore): Promise<string[]> {
  const out: string[] = [];
  for (const ns of await store.listNamespaces({ limit: 1000 })) {
    for (const item of await store.search(ns, { limit: 1000 })) out.push(`${ns.join("/")}: ${String(item.value.text ?? JSON.stringify(item.value))}`);
  }
  return out.sort();
}

const WARNING = /the runtime passed a store \(InMemoryStore, on config\.store\) and this memory component has its own `store` option \(HNSWStore\); memory uses HNSWStore/;

let runtime: InMemoryStore;
let own: HNSWStore;
let warn: { mock: { calls: unknown[][] }; mockRestore(): void };
const warnings = () => warn.mock.calls.map((c: unknown[]) => String(c[0])).filter((m: string) => WARNING.test(m));

beforeEach(() => {
  runtime = new InMemoryStore();
  own = new HNSWStore({ index: { dims: 32, embeddings: new FakeEmbeddings({ dims: 32 }), fields: ["text"] } });
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(async () => {
  warn.mockRestore();
  await own.close();
});

describe("the store option wins over the runtime's store, on every path", () => {
  it("withMemory (preload, memory tools, inline extraction, episodes) compiled with another store", async () => {
    const model = new ScriptedChatModel({
      turns: [
        call("c1", "remember", { content: "User has a dog named Rex." }),
        "Noted.",
        "Something with mushrooms?",
        call("c2", "search_conversations", { query: "dog named Rex" }),
        "You told me about Rex.",
      ],
      fallback: "ok",
    });
    const graph = withMemory(new StateGraph(MessagesAnnotation), {
      model,
      namespace: NS,
      store: own,
      mode: "both",
      extract: extractor(["User is vegetarian."]),
      episodes: {},
    }).compile({ checkpointer: new MemorySaver(), store: runtime });
    await graph.invoke({ messages: [new HumanMessage("I'm vegetarian and I have a dog named Rex")] }, { configurable: { thread_id: "t1", user_id: "42" } });
    await graph.invoke({ messages: [new HumanMessage("What should I cook?")] }, { configurable: { thread_id: "t2", user_id: "42" } });

    expect(seen(model)).toContain("User is vegetarian."); // recalled from `own` in the other thread
    await graph.invoke({ messages: [new HumanMessage("Which pet did I mention?")] }, { configurable: { thread_id: "t3", user_id: "42" } });
    const toolReply = model.calls.at(-1)!.filter((m) => m.getType() === "tool").map(text).join("\n");
    expect(toolReply).toContain("I'm vegetarian and I have a dog named Rex"); // search_conversations read `own`'s episodes
    const stored = await everything(own);
    expect(stored).toEqual(expect.arrayContaining(["users/42: User has a dog named Rex.", "users/42: User is vegetarian."]));
    expect(stored.some((s) => s.startsWith("episodes/42: I'm vegetarian"))).toBe(true);
    expect(await everything(runtime)).toEqual([]);
    expect(warnings()).toHaveLength(1);
  });

  it("callModel + createMemoryTools + writeMemory in the background (the extractor's debounced run) in a hand-built graph", async () => {
    const ex = extractor(["User lives in Lisbon."]);
    const model = new ScriptedChatModel({ turns: [call("c1", "remember", { content: "User plays the cello." }), "Noted."], fallback: "ok" });
    const tools = createMemoryTools({ namespace: NS, store: own });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", callModel({ model, namespace: NS, store: own, mode: "both" }))
      .addNode("tools", new MemoryToolNode(tools, { namespaces: [NS] }))
      .addNode("write", writeMemory({ extractor: ex, namespace: NS, store: own, debounceSeconds: 0.05 }))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : "write"), ["tools", "write"])
      .addEdge("tools", "agent")
      .addEdge("write", END)
      .compile({ store: runtime });
    await graph.invoke({ messages: [new HumanMessage("I live in Lisbon and play the cello")] }, { configurable: { thread_id: "t1", user_id: "7" } });
    await ex.flush(); // the background extraction ran after the run ended, on `own`
    expect(await everything(own)).toEqual(["users/7: User lives in Lisbon.", "users/7: User plays the cello."]);
    expect(await everything(runtime)).toEqual([]);
    expect(warnings()).toHaveLength(1);
  });

  it("memoryMiddleware (preload, tools, afterAgent extraction, episodes) in createAgent({ store })", async () => {
    const model = new ScriptedChatModel({
      turns: [call("c1", "remember", { content: "User is allergic to peanuts." }), "Noted.", "How about a curry?"],
      fallback: "ok",
    });
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      store: runtime,
      middleware: [memoryMiddleware({ namespace: NS, store: own, mode: "both", extract: extractor(["User is vegan."]), episodes: {} })],
    });
    await agent.invoke({ messages: [new HumanMessage("I'm vegan and allergic to peanuts")] }, { configurable: { thread_id: "a" }, context: { user_id: "9" } });
    await agent.invoke({ messages: [new HumanMessage("Dinner ideas?")] }, { configurable: { thread_id: "b" }, context: { user_id: "9" } });
    const lastInput = seen(model);
    expect(lastInput).toContain("User is vegan.");
    expect(lastInput).toContain("User is allergic to peanuts.");
    const stored = await everything(own);
    expect(stored).toEqual(expect.arrayContaining(["users/9: User is allergic to peanuts.", "users/9: User is vegan."]));
    expect(stored.some((s) => s.startsWith("episodes/9: I'm vegan"))).toBe(true);
    expect(await everything(runtime)).toEqual([]);
    expect(warnings()).toHaveLength(1);
  });

  it("without the option the runtime's store is used, and no replacement is logged (only that it has no vector index)", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: NS, extract: extractor(["User is vegetarian."]) }).compile({ store: runtime });
    await graph.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, { configurable: { thread_id: "t", user_id: "1" } });
    expect((await runtime.search(["users", "1"])).map((i) => i.value.text)).toEqual(["User is vegetarian."]);
    expect(warnings()).toEqual([]);
    expect(warn.mock.calls.map((c: unknown[]) => String(c[0])).every((m: string) => /recalls by KEYWORDS ONLY/.test(m))).toBe(true);
  });

  it("the same store as option and on compile (or wrapped by LangGraph) logs nothing", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: NS, store: own, extract: extractor(["User is vegetarian."]) }).compile({ store: own });
    await graph.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, { configurable: { thread_id: "t", user_id: "1" } });
    expect((await own.search(["users", "1"])).map((i) => i.value.text)).toEqual(["User is vegetarian."]);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("resolveStore", () => {
  it("prefers the option, unwraps LangGraph's batching wrapper, warns once per option store through the given logger", () => {
    const logger = { warn: vi.fn() };
    const wrapped = { lg_name: "AsyncBatchedStore", store: runtime } as unknown as BaseStore;
    expect(resolveStore(own, { store: wrapped }, logger)).toBe(own);
    expect(resolveStore(own, { store: runtime }, logger)).toBe(own);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0][0])).toMatch(WARNING);
    expect(resolveStore(undefined, { store: wrapped }, logger)).toBe(runtime);
    expect(resolveStore(own, {}, logger)).toBe(own);
    expect(resolveStore(own, { store: { lg_name: "AsyncBatchedStore", store: own } as unknown as BaseStore }, logger)).toBe(own);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const other = new HNSWStore();
    expect(resolveStore(other, { store: runtime }, logger)).toBe(other); // another option store: its own one line
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(() => resolveStore(undefined, {}, logger)).toThrow(InvalidArgumentError);
  });
});
