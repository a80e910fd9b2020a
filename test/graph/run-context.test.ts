/**
 * Namespaces filled from the v1 runtime `context`, from `config.configurable`,
 * and from the LangGraph server's authenticated user
 * (`configurable.langgraph_auth_user_id`), in callModel, the tools node,
 * writeMemory and withMemory, under a real SQLite checkpointer. The chat and
 * extractor models are ScriptedChatModel (TEST DOUBLE); embeddings are
 * FakeEmbeddings (TEST DOUBLE).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { withMemory } from "../../src/graph/with-memory.js";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { MissingConfigError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { storeFactories, type StoreCase } from "./stores.js";
import { withStoreAndThreads } from "./store-fixture.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const memoryBlock = (msgs: BaseMessage[]) => msgs.filter((m) => m.getType() === "system" && text(m).startsWith(MEMORY_CONTEXT_HEADER)).map(text).join("\n");

describe.each(storeFactories())("run values over $name", (factory) => {
  let c: StoreCase;
  let dir: string;
  let checkpointer: SqliteSaver;
  withStoreAndThreads(factory, "run-context-", (fx) => ({ c, dir, checkpointer } = fx));

  function graphFor(namespace: string[], model: ScriptedChatModel, extractor?: MemoryExtractor) {
    return withMemory(new StateGraph(MessagesAnnotation), { model, mode: "both", namespace, store: c.store, extract: extractor }).compile({ checkpointer, store: c.store });
  }

  it("context: preload, the tools node and write_memory all use invoke(input, { context: { user_id } })", async () => {
    await c.store.put(["users", "42"], "diet", { text: "User is vegetarian" });
    await c.store.put(["users", "9"], "diet", { text: "User eats everything" });
    const model = new ScriptedChatModel({
      turns: [new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "remember", args: { content: "User has a dog", key: "pet" } }] }), "Noted."],
      fallback: "ok",
    });
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User lives in Porto."]'], fallback: "[]" }), structuredOutput: false, enableUpdates: false });
    const graph = graphFor(["users", "{user_id}"], model, extractor);
    // context wins over configurable (user 9 here is what a stale configurable would say)
    await graph.invoke({ messages: [new HumanMessage("I got a dog; I live in Porto")] }, { configurable: { thread_id: "t1", user_id: "9" }, context: { user_id: "42" } });
    expect(memoryBlock(model.calls[0])).toContain("User is vegetarian");
    expect(memoryBlock(model.calls[0])).not.toContain("eats everything");
    expect((await c.store.get(["users", "42"], "pet"))?.value.text).toBe("User has a dog");
    const texts = (await c.store.search(["users", "42"], { limit: 10 })).map((i) => i.value.text).sort();
    expect(texts).toEqual(["User has a dog", "User is vegetarian", "User lives in Porto."]);
    expect(await c.store.search(["users", "9"], { limit: 10 })).toHaveLength(1);
  });

  it("configurable alone still works", async () => {
    await c.store.put(["users", "42"], "diet", { text: "User is vegetarian" });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    await graphFor(["users", "{user_id}"], model).invoke({ messages: [new HumanMessage("dinner?")] }, { configurable: { thread_id: "t1", user_id: "42" } });
    expect(memoryBlock(model.calls[0])).toContain("User is vegetarian");
  });

  it("{langgraph_auth_user_id} comes from configurable (set by the LangGraph server), never from the client's context", async () => {
    await c.store.put(["users", "auth-7"], "diet", { text: "User is vegan" });
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const graph = graphFor(["users", "{langgraph_auth_user_id}"], model);
    await graph.invoke({ messages: [new HumanMessage("dinner?")] }, { configurable: { thread_id: "t1", langgraph_auth_user_id: "auth-7" } });
    expect(memoryBlock(model.calls[0])).toContain("User is vegan");
    await expect(
      graph.invoke({ messages: [new HumanMessage("dinner?")] }, { configurable: { thread_id: "t2" }, context: { langgraph_auth_user_id: "auth-7" } }),
    ).rejects.toThrow(MissingConfigError);
    expect(model.calls).toHaveLength(1);
  });

  it("neither source: MissingConfigError naming both ways to pass the id, before the model is called", async () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const run = graphFor(["users", "{user_id}"], model).invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "t1" }, context: {} });
    await expect(run).rejects.toThrow(MissingConfigError);
    await expect(graphFor(["users", "{user_id}"], model).invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "t1" } })).rejects.toThrow(
      /context: \{ user_id.*configurable: \{ user_id/,
    );
    expect(model.calls).toHaveLength(0);
  });
});
