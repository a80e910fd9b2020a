import { describe, expect, it } from "vitest";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { writeMemory } from "../../src/graph/write-memory.js";
import { waitForPendingWrites } from "../../src/scope/pending-writes.js";
import { cursorNamespace } from "../../src/extract/cursor.js";
import { ScriptedChatModel, type ScriptedTurn } from "../helpers/scripted-chat-model.js";
import { memoryStore, NS, recordingLogger, userText } from "./support.js";

// ScriptedChatModel is a TEST DOUBLE (no LLM runs here); FakeEmbeddings backs the store.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** TEST DOUBLE: a scripted model that takes `delayMs` to answer, like a slow provider. */
class SlowScripted extends ScriptedChatModel {
  constructor(
    turns: ScriptedTurn[],
    private readonly delayMs: number,
  ) {
    super({ turns });
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    await sleep(this.delayMs);
    return super._generate(messages);
  }
}

describe("background, debounced extraction", () => {
  it("debounces per thread: a burst of turns makes one call with all the new messages, after the quiet period", async () => {
    const model = new ScriptedChatModel({ turns: ['["User likes jazz.", "User plays piano."]', '["User is in Oslo."]'] });
    const extractor = new MemoryExtractor({ model, enableUpdates: false }); // no consolidation call
    const store = memoryStore();
    const thread: BaseMessage[] = [];
    for (const text of ["hi", "I like jazz", "I play piano"]) {
      thread.push(new HumanMessage(text));
      void extractor.saveInBackground(store, [...thread], NS, { threadId: "t1", delaySeconds: 0.05 });
      await sleep(10);
    }
    const other = extractor.saveInBackground(store, [new HumanMessage("I'm in Oslo")], NS, { threadId: "t2", delaySeconds: 0.05 });
    expect(model.calls).toHaveLength(0);
    await sleep(150);
    expect(model.calls).toHaveLength(2);
    expect(userText(model.calls[0])).toBe("Conversation:\nUser: hi\nUser: I like jazz\nUser: I play piano");
    expect((await other)?.added.map((a) => a.text)).toEqual(["User is in Oslo."]);
    expect(extractor.pending).toBe(0);
  });

  it("flush() cancels the wait and runs pending work now", async () => {
    const model = new ScriptedChatModel({ turns: ['["User likes jazz."]'] });
    const extractor = new MemoryExtractor({ model });
    const store = memoryStore();
    const started = Date.now();
    void extractor.saveInBackground(store, [new HumanMessage("I like jazz")], NS, { threadId: "t1", delaySeconds: 3600 });
    await extractor.flush();
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await store.search(NS)).map((i) => i.value.text)).toEqual(["User likes jazz."]);
    await extractor.flush(); // nothing pending: resolves at once
  });

  it("the node returns before the slow extraction; a recall waits for the pending write", async () => {
    const model = new SlowScripted(['["User likes jazz."]'], 100);
    const extractor = new MemoryExtractor({ model });
    const store = memoryStore();
    const node = writeMemory({ extractor, namespace: ["users", "{user_id}"], store, debounceSeconds: 0.02 });
    const t0 = Date.now();
    expect(await node({ messages: [new HumanMessage("I like jazz")] }, { configurable: { user_id: "42", thread_id: "t" } })).toEqual({});
    expect(Date.now() - t0).toBeLessThan(50);
    await sleep(40); // debounce over: the extraction is running (the model takes 100 ms)
    expect(await store.search(NS)).toEqual([]);
    await waitForPendingWrites(store, NS);
    expect((await store.search(NS)).map((i) => i.value.text)).toEqual(["User likes jazz."]);
  });

  it("retries a failed extraction, then logs it and keeps the messages unread for the next turn", async () => {
    const fail = () => {
      throw new Error("provider down");
    };
    const model = new ScriptedChatModel({ turns: [fail, fail, '["User likes jazz."]'] });
    const logger = recordingLogger();
    const extractor = new MemoryExtractor({ model, logger, maxAttempts: 2, retryDelaySeconds: 0.01 });
    const store = memoryStore();
    const msgs = [new HumanMessage("I like jazz")];
    expect(await Promise.all([extractor.saveInBackground(store, msgs, NS, { threadId: "t", delaySeconds: 0.01 }), extractor.flush()])).toEqual([undefined, undefined]);
    expect(model.calls).toHaveLength(2);
    expect(logger.warnings.join("\n")).toMatch(/attempt 1 of 2/);
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]).toMatch(/failed after 2 attempts/);
    expect(extractor.failures).toHaveLength(1);
    expect(await store.get(cursorNamespace(NS), "t")).toBeNull();
    // The next turn on the thread sends the unread message again and succeeds.
    void extractor.saveInBackground(store, [...msgs, new HumanMessage("bye")], NS, { threadId: "t", delaySeconds: 0.01 });
    await extractor.flush();
    expect(userText(model.calls[2])).toContain("I like jazz");
    expect((await store.search(NS)).map((i) => i.value.text)).toEqual(["User likes jazz."]);
  });

  it("jobs on one thread never overlap: a turn scheduled while one runs starts after it", async () => {
    const model = new SlowScripted(['["User likes jazz."]', '["User plays piano."]'], 60);
    const extractor = new MemoryExtractor({ model, enableUpdates: false });
    const store = memoryStore();
    const m1 = [new HumanMessage({ id: "1", content: "I like jazz" })];
    const first = extractor.saveInBackground(store, m1, NS, { threadId: "t", delaySeconds: 0 });
    await sleep(20); // first is running
    const second = extractor.saveInBackground(store, [...m1, new HumanMessage({ id: "2", content: "I play piano" })], NS, { threadId: "t", delaySeconds: 0 });
    await Promise.all([first, second]);
    expect(userText(model.calls[1])).toBe("Conversation:\nUser: I play piano");
  });

  it("rejects bad arguments at once, before scheduling anything", () => {
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: [] }) });
    const store = memoryStore();
    expect(() => extractor.saveInBackground(store, [], [], { delaySeconds: 1 })).toThrow(/namespace/);
    expect(() => extractor.saveInBackground(store, [], NS, { delaySeconds: -1 })).toThrow(/delaySeconds/);
    expect(extractor.pending).toBe(0);
  });
});
