/**
 * Tests of the chatbot's offline stand-in model (OfflineDemoModel, a rule-based
 * TEST DOUBLE for an LLM) against the real MemoryExtractor, so that the demo's
 * extraction path is the library's own. Embeddings: FakeEmbeddings (TEST DOUBLE).
 */
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { formatMemoryContext } from "../../src/graph/format-memories.js";
import { firstPersonFacts } from "../../examples/chatbot/facts.js";
import { OfflineDemoModel } from "../../examples/chatbot/offline-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const quiet = { warn: () => {}, error: () => {} };

describe("firstPersonFacts", () => {
  it.each([
    ["I'm vegetarian and allergic to peanuts.", ["User is vegetarian.", "User is allergic to peanuts."]],
    ["Hi! I'm vegetarian and I am allergic to peanuts.", ["User is vegetarian.", "User is allergic to peanuts."]],
    ["I live in Lisbon and I have a dog named Rex.", ["User lives in Lisbon.", "User has a dog named Rex."]],
    ["Actually, I moved to Lisbon last month.", ["User lives in Lisbon."]],
    ["My name is Ann.", ["User's name is Ann."]],
    ["I don't eat mushrooms", ["User does not eat mushrooms."]],
    ["I love my sister's cooking", ["User loves their sister's cooking."]],
    ["Reminder: I am vegetarian, as I said.", ["User is vegetarian."]],
    ["What should I cook for dinner?", []],
    ["I'm hungry. I'm looking for ideas.", []],
    ["Thanks!", []],
  ])("%s", (text, expected) => {
    expect(firstPersonFacts(text)).toEqual(expected);
  });
});

describe("OfflineDemoModel", () => {
  it("answers the real extractor's prompts: facts are written once; a repeat is consolidated as NONE", async () => {
    const store = new HNSWStore({ index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
    const extractor = new MemoryExtractor({ model: new OfflineDemoModel(), logger: quiet });
    const ns = ["users", "42"];
    const first = await extractor.save(store, [new HumanMessage("I'm vegetarian and allergic to peanuts."), new AIMessage("Noted.")], ns);
    expect(first.added.map((m) => m.text)).toEqual(["User is vegetarian.", "User is allergic to peanuts."]);
    const repeat = new HumanMessage("Reminder: I am vegetarian, as I said.");
    expect(await extractor.extract([repeat])).toEqual(["User is vegetarian."]);
    const again = await extractor.save(store, [repeat], ns);
    expect(again).toEqual({ added: [], updated: [], deleted: [] });
    expect(await store.count(ns)).toBe(2);
  });

  it("uses the memory context it is given, and nothing else", async () => {
    const model = new OfflineDemoModel();
    const context = formatMemoryContext([{ key: "a", value: { text: "User is vegetarian." } }, { key: "b", value: { text: "User is allergic to peanuts." } }])!;
    const withMemory = await model.invoke([new SystemMessage(context), new HumanMessage("Dinner ideas?")]);
    expect(withMemory.content).toContain("User is vegetarian.");
    expect(withMemory.content).not.toMatch(/peanut sauce|beef|salmon/);
    const without = await model.invoke([new HumanMessage("Dinner ideas?")]);
    expect(without.content).not.toContain("remember");
  });

  it("with memory tools bound: a statement becomes remember calls, a question a search_memory call, then a reply from the results", async () => {
    const model = new OfflineDemoModel().bindTools([{ name: "search_memory" }, { name: "remember" }, { name: "forget" }]);
    const statement = (await model.invoke([new HumanMessage("I live in Lisbon.")])) as AIMessage;
    expect(statement.tool_calls?.map((c) => [c.name, c.args])).toEqual([["remember", { content: "User lives in Lisbon." }]]);
    const question = (await model.invoke([new HumanMessage("What do you know about me?")])) as AIMessage;
    expect(question.tool_calls?.map((c) => c.name)).toEqual(["search_memory"]);
    const reply = await model.invoke([
      new HumanMessage("What do you know about me?"),
      question,
      new ToolMessage({ content: "Found 1 memory:\n- [k1] User lives in Lisbon. (score 0.91)", tool_call_id: question.tool_calls![0].id! }),
    ]);
    expect(reply.content).toBe("Here is what I remember about you: User lives in Lisbon.");
  });
});
