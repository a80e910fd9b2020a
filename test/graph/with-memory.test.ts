/**
 * withMemory end-to-end tests. There is no LLM on these machines: both the
 * chat model and the extractor's model are ScriptedChatModel, a scripted TEST
 * DOUBLE that can emit tool calls. Embeddings come from FakeEmbeddings (TEST
 * DOUBLE). Threads are checkpointed in a real SQLite file in a temp dir.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { withMemory } from "../../src/graph/with-memory.js";
import { callModel } from "../../src/graph/call-model.js";
import { writeMemory } from "../../src/graph/write-memory.js";
import { MemoryToolNode } from "../../src/graph/memory-tool-node.js";
import { createMemoryTools } from "../../src/graph/tools.js";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { encodeLabel } from "../../src/scope/namespace-template.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { InvalidArgumentError, MissingConfigError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { sleep, storeFactories, type StoreCase } from "./stores.js";
import { withStoreAndThreads } from "./store-fixture.js";

const NS = ["users", "{user_id}"];
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const hasMemoryContext = (msgs: BaseMessage[]) => msgs.some((m) => m.getType() === "system" && text(m).startsWith(MEMORY_CONTEXT_HEADER));
const run = (user: string | undefined, thread: string) => ({ configurable: { thread_id: thread, ...(user === undefined ? {} : { user_id: user }) } });

describe.each(storeFactories())("withMemory over $name", (factory) => {
  let c: StoreCase;
  let dir: string;
  let checkpointer: SqliteSaver;
  withStoreAndThreads(factory, "with-memory-", (fx) => ({ c, dir, checkpointer } = fx));

  it("preload: what user 42 said on monday reaches the model on friday; user 7 never sees it; checkpoints hold no memory context", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
    // Scripted extractor model: first extraction returns the fact, later ones nothing.
    const extractorModel = new ScriptedChatModel({ turns: ['["User is vegetarian."]'], fallback: "[]" });
    const extractor = new MemoryExtractor({ model: extractorModel, structuredOutput: false, logger: { warn: () => {}, error: () => {} } as never });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, mode: "preload", namespace: NS, store: c.store, extract: extractor }).compile({
      checkpointer,
      store: c.store,
    });

    await graph.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, run("42", "monday"));
    const stored = await c.store.search(["users", "42"], { limit: 10 });
    expect(stored.map((i) => i.value.text)).toEqual(["User is vegetarian."]);
    expect(stored[0].value.source).toBe("extractor");

    await graph.invoke({ messages: [new HumanMessage("What should I cook for dinner?")] }, run("42", "friday"));
    const friday = model.calls[model.calls.length - 1];
    expect(friday.filter((m) => m.getType() === "human").map(text)).toEqual(["What should I cook for dinner?"]); // new thread
    expect(hasMemoryContext(friday)).toBe(true);
    expect(friday.map(text).join("\n")).toContain("User is vegetarian.");

    await graph.invoke({ messages: [new HumanMessage("What should I cook for dinner?")] }, run("7", "friday-7"));
    const user7 = model.calls[model.calls.length - 1];
    expect(user7.map(text).join("\n")).not.toContain("vegetarian");

    for (const thread of ["monday", "friday", "friday-7"]) {
      const state = await graph.getState(run(thread === "friday-7" ? "7" : "42", thread));
      const messages = state.values.messages as BaseMessage[];
      expect(messages.map((m) => m.getType())).toEqual(["human", "ai"]);
      expect(hasMemoryContext(messages)).toBe(false);
    }
  });

  it("background extraction: a recall on the next turn waits for a write in progress, even via config.store", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    // Scripted extractor model that takes 300 ms to answer, so the write is still in progress when the next turn starts.
    class SlowScriptedChatModel extends ScriptedChatModel {
      override async _generate(messages: BaseMessage[]) {
        await sleep(300);
        return super._generate(messages);
      }
    }
    const extractor = new MemoryExtractor({ model: new SlowScriptedChatModel({ turns: ['["User is vegetarian."]'], fallback: "[]" }), structuredOutput: false });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: NS, extract: { extractor, debounceSeconds: 0.05 } }).compile({
      checkpointer,
      store: c.store,
    });
    try {
      await graph.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, run("42", "monday"));
      await sleep(120); // the debounce has passed: extraction is running
      expect(await c.store.search(["users", "42"], { limit: 10 })).toHaveLength(0);
      await graph.invoke({ messages: [new HumanMessage("Dinner ideas?")] }, run("42", "friday"));
      expect(model.calls[1].map(text).join("\n")).toContain("User is vegetarian.");
    } finally {
      await extractor.flush();
    }
  });

  it("background extraction: a recall from another thread starts a queued extraction and waits; the same thread does not", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const extractorModel = new ScriptedChatModel({ turns: ['["User is vegetarian."]'], fallback: "[]" });
    const extractor = new MemoryExtractor({ model: extractorModel, structuredOutput: false });
    // A 60 s debounce: nothing would run during this test unless a recall starts it.
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: NS, store: c.store, extract: { extractor, debounceSeconds: 60 } }).compile({
      checkpointer,
      store: c.store,
    });
    try {
      await graph.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, run("42", "monday"));
      await graph.invoke({ messages: [new HumanMessage("And I like tea")] }, run("42", "monday"));
      expect(extractorModel.calls).toHaveLength(0); // same thread: still queued, reply not delayed
      expect(extractor.pending).toBe(1);
      await graph.invoke({ messages: [new HumanMessage("Dinner ideas?")] }, run("42", "friday"));
      expect(extractorModel.calls).toHaveLength(1);
      expect(model.calls[2].map(text).join("\n")).toContain("User is vegetarian.");
      await graph.invoke({ messages: [new HumanMessage("Dinner ideas?")] }, run("7", "friday-7"));
      expect(hasMemoryContext(model.calls[3])).toBe(false);
    } finally {
      await extractor.flush();
    }
  });

  it("postload: a scripted remember lands in the store and a later search_memory finds it", async () => {
    const model = new ScriptedChatModel({
      turns: [
        new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "remember", args: { content: "User is vegetarian", key: "diet" } }] }),
        "I'll remember that.",
        new AIMessage({ content: "", tool_calls: [{ id: "c2", name: "search_memory", args: { query: "vegetarian diet" } }] }),
        (msgs) => `From memory: ${text(msgs[msgs.length - 1])}`,
      ],
    });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, mode: "postload", namespace: NS, store: c.store }).compile({ checkpointer, store: c.store });

    await graph.invoke({ messages: [new HumanMessage("I'm vegetarian")] }, run("42", "monday"));
    expect((await c.store.get(["users", "42"], "diet"))?.value).toEqual({ text: "User is vegetarian", source: "tool" });
    expect(model.boundToolNames).toEqual(["search_memory", "list_memories", "remember", "forget"]);

    const out = await graph.invoke({ messages: [new HumanMessage("What do you know about my diet?")] }, run("42", "friday"));
    const last = out.messages[out.messages.length - 1];
    expect(text(last)).toContain("[diet] User is vegetarian");
    expect(out.messages.map((m: BaseMessage) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(model.calls.every((call) => !hasMemoryContext(call))).toBe(true);
  });

  it("a missing user_id fails the run with MissingConfigError, in preload and in the tools node", async () => {
    const preload = withMemory(new StateGraph(MessagesAnnotation), { model: new ScriptedChatModel({ turns: ["x"] }), namespace: NS, store: c.store }).compile({ checkpointer });
    await expect(preload.invoke({ messages: [new HumanMessage("hi")] }, run(undefined, "t1"))).rejects.toThrow(MissingConfigError);

    // Even if a tool call reaches the tools node without user_id, it is rethrown, not turned into a message.
    const model = new ScriptedChatModel({ turns: [new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search_memory", args: { query: "x" } }] })] });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", callModel({ model, mode: "postload", namespace: ["fixed"], store: c.store }))
      .addNode("tools", new MemoryToolNode(createMemoryTools({ namespace: NS, store: c.store })))
      .addEdge(START, "agent")
      .addEdge("agent", "tools")
      .addEdge("tools", END)
      .compile();
    await expect(graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: {} })).rejects.toThrow(MissingConfigError);
  });

  it("falls back to the store compiled into the graph (config.store) when none is passed", async () => {
    await c.store.put(["users", "42"], "m1", { text: "User is vegetarian", source: "tool" });
    const model = new ScriptedChatModel({
      turns: [new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "remember", args: { content: "User has a dog", key: "pet" } }] })],
      fallback: "ok",
    });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, mode: "both", namespace: NS }).compile({ checkpointer, store: c.store });
    await graph.invoke({ messages: [new HumanMessage("I got a dog")] }, run("42", "t1"));
    expect(model.calls[0].map(text).join("\n")).toContain("[m1] User is vegetarian");
    expect((await c.store.get(["users", "42"], "pet"))?.value.text).toBe("User has a dog");
  });

  it("mode none: the model sees no memory, but write_memory still extracts", async () => {
    await c.store.put(["users", "42"], "m1", { text: "User is vegetarian", source: "tool" });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User has a dog."]'], fallback: "[]" }), structuredOutput: false, enableUpdates: false });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, mode: "none", namespace: NS, store: c.store, extract: { extractor } }).compile({ checkpointer });
    await graph.invoke({ messages: [new HumanMessage("I got a dog")] }, run("42", "t1"));
    expect(model.calls[0].map(text)).toEqual(["I got a dog"]);
    expect(model.boundToolNames).toEqual([]);
    const texts = (await c.store.search(["users", "42"], { limit: 10 })).map((i) => i.value.text).sort();
    expect(texts).toEqual(["User has a dog.", "User is vegetarian"]);
  });

  it("dotted ids (e-mail addresses) work end to end", async () => {
    await c.store.put(["users", encodeLabel("ann.lee@example.com")], "m1", { text: "User is allergic to penicillin", source: "tool" });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: NS, store: c.store }).compile({ checkpointer, store: c.store });
    await graph.invoke({ messages: [new HumanMessage("Which medicine is safe for me?")] }, run("ann.lee@example.com", "t1"));
    expect(model.calls[0].map(text).join("\n")).toContain("penicillin");
  });

  it("callModel and writeMemory by hand in your own graph, with extra state", async () => {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, turns: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User prefers email."]'], fallback: "[]" }), structuredOutput: false });
    const graph = new StateGraph(State)
      .addNode("count", () => ({ turns: 1 }))
      .addNode("agent", callModel({ model, namespace: NS, store: c.store, systemPrompt: "Be brief." }))
      .addNode("save", writeMemory({ extractor, namespace: NS, store: c.store }))
      .addEdge(START, "count")
      .addEdge("count", "agent")
      .addEdge("agent", "save")
      .addEdge("save", END)
      .compile({ checkpointer });
    await graph.invoke({ messages: [new HumanMessage("Please contact me by email")] }, run("42", "a"));
    const out = await graph.invoke({ messages: [new HumanMessage("How will you reach me?")] }, run("42", "b"));
    expect(out.turns).toBe(1);
    const input = model.calls[1];
    expect(text(input[0])).toBe("Be brief.");
    expect(text(input[1])).toContain("User prefers email.");
  });
});

describe("withMemory arguments", () => {
  const model = new ScriptedChatModel({ turns: [] });
  it("rejects graphs without messages, taken node names, and bad modes", () => {
    const noMessages = new StateGraph(Annotation.Root({ count: Annotation<number> }));
    expect(() => withMemory(noMessages, { model, namespace: NS })).toThrow(/messages/);
    const taken = new StateGraph(MessagesAnnotation).addNode("tools", () => ({}));
    expect(() => withMemory(taken, { model, namespace: NS })).toThrow(/"tools"/);
    expect(() => withMemory(new StateGraph(MessagesAnnotation), { model, namespace: NS, mode: "later" as never })).toThrow(InvalidArgumentError);
    expect(() => withMemory(new StateGraph(MessagesAnnotation), { model, namespace: [] })).toThrow(/namespace/);
    expect(() => withMemory(new StateGraph(MessagesAnnotation), undefined as never)).toThrow(InvalidArgumentError);
    expect(() => withMemory({} as never, { model, namespace: NS })).toThrow(/StateGraph/);
  });
});
