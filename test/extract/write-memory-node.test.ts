import { describe, expect, it } from "vitest";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { writeMemory } from "../../src/graph/write-memory.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { InvalidArgumentError, MissingConfigError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { memoryStore, recordingLogger, userText } from "./support.js";

// The chat model here is the ScriptedChatModel TEST DOUBLE: no LLM runs in tests.

function buildGraph(extractor: MemoryExtractor, store: ReturnType<typeof memoryStore>, debounceSeconds = 0) {
  let turn = 0;
  const agent = async () => ({ messages: [new AIMessage(`reply ${++turn}`)] });
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", agent)
    .addNode("write_memory", writeMemory({ extractor, namespace: ["users", "{user_id}"], debounceSeconds }))
    .addEdge(START, "agent")
    .addEdge("agent", "write_memory")
    .addEdge("write_memory", END)
    .compile({ checkpointer: new MemorySaver(), store });
}

describe("writeMemory node in a StateGraph with a checkpointer", () => {
  it("extracts inline, keys the cursor by thread, and only sends new messages on the next turn", async () => {
    const model = new ScriptedChatModel({ turns: ['["User lives in Berlin."]', '["User has a cat named Miso."]', '[{"fact": "f1", "action": "ADD"}]'] });
    const extractor = new MemoryExtractor({ model, logger: recordingLogger() });
    const store = memoryStore();
    const graph = buildGraph(extractor, store);
    const config = { configurable: { thread_id: "t1", user_id: "42" } };

    await graph.invoke({ messages: [new HumanMessage("I live in Berlin")] }, config);
    let items = await store.search(["users", "42"]);
    expect(items.map((i) => i.value.text)).toEqual(["User lives in Berlin."]);
    expect(items[0].value).toMatchObject({ source: "extractor", thread: "t1" });

    await graph.invoke({ messages: [new HumanMessage("my cat is called Miso")] }, config);
    // extraction, then extraction + one consolidation call (the store is no longer empty)
    expect(model.calls).toHaveLength(3);
    expect(userText(model.calls[2])).toContain("m1: User lives in Berlin.");
    const second = userText(model.calls[1]);
    expect(second).toContain("my cat is called Miso");
    expect(second).not.toContain("I live in Berlin");
    items = await store.search(["users", "42"], { limit: 10 });
    expect(items.map((i) => i.value.text).sort()).toEqual(["User has a cat named Miso.", "User lives in Berlin."]);
  });

  it("throws MissingConfigError without user_id and writes nothing", async () => {
    const model = new ScriptedChatModel({ turns: ['["User lives in Berlin."]'] });
    const store = memoryStore();
    const graph = buildGraph(new MemoryExtractor({ model }), store);
    await expect(graph.invoke({ messages: [new HumanMessage("I live in Berlin")] }, { configurable: { thread_id: "t1" } })).rejects.toThrow(MissingConfigError);
    expect(model.calls).toHaveLength(0);
    expect(await store.search([])).toEqual([]);
  });

  it("in background mode returns before extracting; flush() writes", async () => {
    const model = new ScriptedChatModel({ turns: ['["User prefers tea."]'] });
    const extractor = new MemoryExtractor({ model });
    const store = memoryStore();
    const graph = buildGraph(extractor, store, 30);
    await graph.invoke({ messages: [new HumanMessage("I prefer tea")] }, { configurable: { thread_id: "t1", user_id: "42" } });
    expect(model.calls).toHaveLength(0);
    expect(extractor.pending).toBe(1);
    await extractor.flush();
    expect(model.calls).toHaveLength(1);
    expect((await store.search(["users", "42"])).map((i) => i.value.text)).toEqual(["User prefers tea."]);
  });

  it("rejects bad options with named errors", () => {
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: [] }) });
    expect(() => writeMemory({ extractor: {} as never, namespace: ["users", "{user_id}"] })).toThrow(/must be a MemoryExtractor/);
    expect(() => writeMemory({ extractor, namespace: [] })).toThrow(InvalidArgumentError);
    expect(() => writeMemory({ extractor, namespace: ["u"], debounceSeconds: -1 })).toThrow(/debounceSeconds/);
  });

  it("saves nothing without an extractor, but still refuses a run without its user id", async () => {
    const store = memoryStore();
    const node = writeMemory({ namespace: ["users", "{user_id}"], store });
    const messages = [new HumanMessage("I prefer tea")];
    expect(await node({ messages }, { configurable: { thread_id: "t", user_id: "42" } })).toEqual({});
    expect(await store.search(["users"])).toEqual([]);
    await expect(node({ messages }, { configurable: { thread_id: "t" } })).rejects.toThrow(/user_id/);
  });
});
