import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { cursorNamespace } from "../../src/extract/cursor.js";
import { factKey } from "../../src/extract/messages.js";
import { InvalidArgumentError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { extractorSetup, memoryStore, NS, say, texts, userText } from "./support.js";

// All chat models here are the ScriptedChatModel TEST DOUBLE (no LLM runs in tests);
// the store's embedder is the deterministic FakeEmbeddings TEST DOUBLE.

const setup = extractorSetup;

describe("MemoryExtractor.extract", () => {
  it("makes one call and returns facts from a fenced reply", async () => {
    const { model, extractor } = setup(['Here you go:\n```json\n["User lives in Berlin.", {"fact": "User is a nurse."}]\n```']);
    expect(await extractor.extract([new HumanMessage("I'm a nurse in Berlin"), new AIMessage("Nice!")])).toEqual(["User lives in Berlin.", "User is a nurse."]);
    expect(model.calls).toHaveLength(1);
    expect(userText(model.calls[0])).toContain("User: I'm a nurse in Berlin\nAssistant: Nice!");
    expect(String(model.calls[0][0].content)).toMatch(/NEVER record secrets/);
  });

  it("a garbage reply yields no facts, a warning, no writes, and leaves the cursor so the next run retries", async () => {
    const { model, logger, extractor, store } = setup(["Sorry, I can't help with that.", '["User likes jazz."]']);
    const msgs = say("I like jazz");
    expect(await extractor.save(store, msgs, NS, { threadId: "t" })).toEqual({ added: [], updated: [], deleted: [] });
    expect(logger.warnings.join("\n")).toMatch(/could not parse/);
    expect(await store.search([])).toEqual([]);
    await extractor.save(store, msgs, NS, { threadId: "t" });
    expect(userText(model.calls[1])).toContain("I like jazz");
    expect(await texts(store)).toEqual(["User likes jazz."]);
  });

  it("never stores facts that look like secrets", async () => {
    const { logger, extractor, store } = setup(['["User\'s card number is 4111 1111 1111 1111.", "User likes jazz."]']);
    await extractor.save(store, say("my card is 4111 1111 1111 1111 and I like jazz"), NS);
    expect(await texts(store)).toEqual(["User likes jazz."]);
    expect(logger.warnings.join("\n")).toMatch(/secret/);
  });

  it("uses structured output when the model supports it", async () => {
    class StructuredScripted extends ScriptedChatModel {
      schemas: unknown[] = [];
      withStructuredOutput(schema: unknown) {
        this.schemas.push(schema);
        return RunnableLambda.from(async (input: BaseMessage[]) => {
          this.calls.push(input);
          return { facts: ["User speaks Portuguese."] };
        }) as never;
      }
    }
    const model = new StructuredScripted({ turns: [] });
    const extractor = new MemoryExtractor({ model });
    expect(extractor.structuredOutput).toBe(true);
    expect(new MemoryExtractor({ model: new ScriptedChatModel({ turns: [] }) }).structuredOutput).toBe(false);
    const store = memoryStore();
    await extractor.save(store, say("falo português"), NS);
    expect(model.schemas).toHaveLength(1);
    expect(await texts(store)).toEqual(["User speaks Portuguese."]);
  });

  it("retries a failing model call, then succeeds", async () => {
    const { model, extractor, store } = setup([
      () => {
        throw new Error("503 from provider");
      },
      '["User likes jazz."]',
    ]);
    await extractor.save(store, say("I like jazz"), NS);
    expect(model.calls).toHaveLength(2);
    expect(await texts(store)).toEqual(["User likes jazz."]);
  });

  it("rejects bad input with named errors and writes nothing", async () => {
    const { extractor, store, model } = setup([]);
    expect(() => new MemoryExtractor({} as never)).toThrow(InvalidArgumentError);
    expect(() => new MemoryExtractor({ model, mode: "bogus" as never })).toThrow(/mode/);
    expect(() => new MemoryExtractor({ model, duplicateThreshold: 2 })).toThrow(/duplicateThreshold/);
    await expect(extractor.save(store, say("x"), [])).rejects.toThrow(InvalidArgumentError);
    await expect(extractor.save(store, "hi" as never, NS)).rejects.toThrow(/array of messages/);
    await expect(extractor.save(store, say("x"), NS, { ttl: -1 })).rejects.toThrow(/ttl/);
    expect(model.calls).toHaveLength(0);
    expect(await store.search([])).toEqual([]);
  });
});

describe("stable keys and consolidation", () => {
  it("re-extracting the same fact updates it in place under the same key", async () => {
    const { extractor, store } = setup(['["User likes green tea."]', '["user likes green tea"]'], { enableUpdates: false });
    const first = await extractor.save(store, say("I like green tea"), NS, { threadId: "a" });
    expect(first.added).toEqual([{ key: factKey("User likes green tea."), text: "User likes green tea." }]);
    const second = await extractor.save(store, say("green tea is my favourite"), NS, { threadId: "b" });
    expect(second.added).toEqual([]);
    expect(second.updated).toHaveLength(1);
    expect(second.updated[0].key).toBe(first.added[0].key);
    const items = await store.search(NS);
    expect(items).toHaveLength(1);
    expect(items[0].value).toEqual({ text: "user likes green tea", source: "extractor", thread: "b" });
  });

  it("without consolidation, a near-duplicate (cosine ≥ 0.95) replaces the existing memory", async () => {
    // Bag-of-words test embedder: same words in another order → cosine 1.
    const { extractor, store, model } = setup(['["User likes green tea."]', '["Green tea: user likes."]', '["User owns a bike."]'], {
      enableUpdates: false,
      enableDeletes: false,
    });
    await extractor.save(store, say("1"), NS);
    const r = await extractor.save(store, say("2"), NS);
    expect(r.updated).toMatchObject([{ text: "Green tea: user likes.", previousText: "User likes green tea." }]);
    await extractor.save(store, say("3"), NS);
    expect(await texts(store)).toEqual(["Green tea: user likes.", "User owns a bike."]);
    expect(model.calls).toHaveLength(3); // no consolidation calls
  });

  it("UPDATE replaces a contradicted fact: 'lives in Berlin' → 'moved to Lisbon'", async () => {
    const { extractor, store, model } = setup([
      '["User lives in Berlin."]',
      '["User moved to Lisbon."]',
      '```json\n[{"fact": "f1", "action": "UPDATE", "id": "m1", "text": "User lives in Lisbon."}]\n```',
    ]);
    await extractor.save(store, say("I live in Berlin"), NS);
    const r = await extractor.save(store, say("I just moved to Lisbon"), NS);
    const prompt = userText(model.calls[2]);
    expect(prompt).toContain("m1: User lives in Berlin.");
    expect(prompt).toContain("f1: User moved to Lisbon.");
    expect(r).toEqual({
      added: [],
      updated: [{ key: factKey("User lives in Lisbon."), text: "User lives in Lisbon.", previousKey: factKey("User lives in Berlin."), previousText: "User lives in Berlin." }],
      deleted: [],
    });
    expect(await texts(store)).toEqual(["User lives in Lisbon."]);
    // The new memory names the one it replaced, so searches keep the old one behind it should both be stored again.
    expect((await store.get(NS, factKey("User lives in Lisbon.")))!.value).toMatchObject({ supersedes: factKey("User lives in Berlin.") });
  });

  it("with enableUpdates: false an UPDATE decision only adds", async () => {
    const { extractor, store, model } = setup(
      ['["User lives in Berlin."]', '["User moved to Lisbon."]', '[{"fact": "f1", "action": "UPDATE", "id": "m1", "text": "User lives in Lisbon."}]'],
      { enableUpdates: false, enableDeletes: true },
    );
    await extractor.save(store, say("1"), NS);
    await extractor.save(store, say("2"), NS);
    expect(String(model.calls[2][0].content)).toMatch(/UPDATE is disabled/);
    expect(await texts(store)).toEqual(["User lives in Berlin.", "User lives in Lisbon."]);
  });

  it("DELETE removes a memory when enabled, and is ignored when not", async () => {
    const turns = ['["User has a cat named Miso."]', '["User no longer has a cat."]', '[{"fact": "f1", "action": "DELETE", "id": "m1"}]'];
    const on = setup([...turns], { enableDeletes: true });
    await on.extractor.save(on.store, say("1"), NS);
    const r = await on.extractor.save(on.store, say("2"), NS);
    expect(r).toEqual({ added: [], updated: [], deleted: [{ key: factKey("User has a cat named Miso."), text: "User has a cat named Miso." }] });
    expect(await texts(on.store)).toEqual([]);

    const off = setup([...turns]);
    await off.extractor.save(off.store, say("1"), NS);
    const r2 = await off.extractor.save(off.store, say("2"), NS);
    expect(r2.deleted).toEqual([]);
    expect(String(off.model.calls[2][0].content)).toMatch(/DELETE is disabled/);
    expect(await texts(off.store)).toEqual(["User has a cat named Miso."]);
  });

  it("NONE for a duplicate leaves the store unchanged", async () => {
    const { extractor, store, model } = setup(['["User prefers tea."]', '["User likes drinking tea."]', '[{"fact": "f1", "action": "NONE", "id": "m1"}]']);
    await extractor.save(store, say("1"), NS);
    const before = await store.search(NS);
    const r = await extractor.save(store, say("2"), NS);
    expect(r).toEqual({ added: [], updated: [], deleted: [] });
    expect(model.calls).toHaveLength(3);
    expect(await store.search(NS)).toEqual(before);
  });

  it("one consolidation call for a batch; facts the model skipped still get the duplicate rule; unknown ids add", async () => {
    const { extractor, store, model } = setup([
      '["User lives in Berlin."]',
      '["User lives in Lisbon.", "User plays chess.", "User is 40."]',
      '[{"fact": "f1", "action": "UPDATE", "id": "m9", "text": "User lives in Lisbon."}, {"fact": "f2", "action": "ADD"}]',
    ]);
    await extractor.save(store, say("1"), NS);
    const r = await extractor.save(store, say("2"), NS);
    expect(model.calls).toHaveLength(3);
    expect(r.added.map((a) => a.text).sort()).toEqual(["User is 40.", "User lives in Lisbon.", "User plays chess."]);
    expect(await texts(store)).toEqual(["User is 40.", "User lives in Berlin.", "User lives in Lisbon.", "User plays chess."]);
  });

  it("an unparseable consolidation reply falls back to the duplicate rule, with a warning", async () => {
    const { extractor, store, logger } = setup(['["User lives in Berlin."]', '["User lives in Berlin.", "User plays chess."]', "uh?"]);
    await extractor.save(store, say("1"), NS);
    const r = await extractor.save(store, say("2"), NS);
    expect(logger.warnings.join("\n")).toMatch(/consolidation/);
    expect(r.added.map((a) => a.text)).toEqual(["User plays chess."]);
    expect(r.updated.map((a) => a.text)).toEqual(["User lives in Berlin."]);
    expect(await texts(store)).toEqual(["User lives in Berlin.", "User plays chess."]);
  });

  it("only consolidates against memories in exactly this namespace", async () => {
    const { extractor, store, model } = setup(['["User lives in Berlin."]']);
    await store.put([...NS, "notes"], "n1", { text: "User lives in Paris." });
    await store.put(["users", "7"], "x", { text: "User lives in Rome." });
    await extractor.save(store, say("1"), NS);
    expect(model.calls).toHaveLength(1); // no neighbours → no consolidation call
  });
});

describe("incremental cursor", () => {
  it("a second run only sends the new messages; the cursor is outside the user's prefix", async () => {
    const { extractor, store, model } = setup(['["User lives in Berlin."]', '["User plays chess."]', '[{"fact": "f1", "action": "ADD"}]']);
    const turn1: BaseMessage[] = [new HumanMessage("I live in Berlin"), new AIMessage("Cool")];
    await extractor.save(store, turn1, NS, { threadId: "t1" });
    const turn2 = [...turn1, new HumanMessage("I play chess"), new AIMessage("Nice")];
    await extractor.save(store, turn2, NS, { threadId: "t1" });
    const sent = userText(model.calls[1]);
    expect(sent).toContain("I play chess");
    expect(sent).not.toContain("Berlin");

    // Nothing new: no model call at all.
    await extractor.save(store, turn2, NS, { threadId: "t1" });
    expect(model.calls).toHaveLength(3);

    // Recall over the user's prefix never sees the cursor.
    const all = await store.search(NS, { query: "t1 processed", limit: 50 });
    expect(all.every((i) => i.value.source === "extractor")).toBe(true);
    const cursor = await store.get(cursorNamespace(NS), "t1");
    expect(cursor?.value).toMatchObject({ processed: 4 });
  });

  it("re-finds its place when the thread was trimmed, and threads are independent", async () => {
    const { extractor, store, model } = setup(['["A."]', '["B."]', '["C."]'], { enableUpdates: false });
    const m = (id: string, text: string) => new HumanMessage({ id, content: text });
    await extractor.save(store, [m("1", "one"), m("2", "two")], NS, { threadId: "t1" });
    await extractor.save(store, [m("2", "two"), m("3", "three")], NS, { threadId: "t1" });
    expect(userText(model.calls[1])).toBe("Conversation:\nUser: three");
    await extractor.save(store, [m("9", "other thread")], NS, { threadId: "t2" });
    expect(userText(model.calls[2])).toBe("Conversation:\nUser: other thread");
  });
});
