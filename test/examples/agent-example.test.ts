/**
 * The createAgent example (examples/agent/) driven in-process: a real
 * `createAgent`, HNSWStore on a temp directory, the real USE-lite embedder,
 * the real MemoryExtractor and a SQLite checkpointer. The chat model is the
 * chatbot example's OfflineDemoModel, a rule-based TEST DOUBLE for an LLM.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BaseMessage } from "@langchain/core/messages";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { memoryNamespace } from "../../src/scope/memory-namespace.js";
import { OfflineDemoModel } from "../../examples/chatbot/offline-model.js";
import { NAMESPACE, openMemoryAgent } from "../../examples/agent/agent.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("examples/agent", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("agent-example-");
  });
  afterEach(() => dir.cleanup());

  it.each(["preload", "both"] as const)("mode %s: Monday's facts shape Friday's answer for the same user only; the threads hold no memory block", async (mode) => {
    const { store, chat, agent } = openMemoryAgent({ dataDir: dir.dir, model: new OfflineDemoModel(), mode });
    try {
      expect(await chat("ann@example.com", "monday", "Hi! I'm vegetarian and I am allergic to peanuts.")).not.toBe("");
      const stored = (await store.search(memoryNamespace(NAMESPACE, { user_id: "ann@example.com" }), { limit: 10 })).map((i) => String(i.value.text)).sort();
      expect(stored).toEqual(["User is allergic to peanuts.", "User is vegetarian."]);

      const friday = await chat("ann@example.com", "friday", "What should I cook for dinner?");
      expect(friday).toContain("User is vegetarian.");
      expect(friday).not.toMatch(/satay|beef|salmon/);
      const bob = await chat("bob", "bob-1", "What should I cook for dinner?");
      expect(bob).not.toContain("vegetarian");

      const state = (await agent.getState({ configurable: { thread_id: "friday" } })) as unknown as { values: { messages: BaseMessage[] } };
      expect(state.values.messages.some((m) => m.text.includes(MEMORY_CONTEXT_HEADER))).toBe(false);
    } finally {
      await store.close();
    }
  });
});
