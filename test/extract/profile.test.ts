import { describe, expect, it } from "vitest";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { mergeProfile, renderProfile } from "../../src/extract/profile.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { memoryStore, NS, recordingLogger, userText, say } from "./support.js";

// ScriptedChatModel is a TEST DOUBLE (no LLM runs here).


describe("profile mode", () => {
  it("keeps one document under a fixed key and merges new information, the newest value winning", async () => {
    const model = new ScriptedChatModel({
      turns: [
        '{"name": "Ann", "location": "Berlin", "pets": ["cat"]}',
        'Updated profile:\n```json\n{"profile": {"location": "Lisbon", "pets": null, "occupation": "nurse"}}\n```',
      ],
    });
    const extractor = new MemoryExtractor({ model, mode: "profile" });
    const store = memoryStore();
    const r1 = await extractor.save(store, say("I'm Ann, I live in Berlin with my cat"), NS, { threadId: "t" });
    expect(r1.added.map((a) => a.key)).toEqual(["profile"]);
    const r2 = await extractor.save(store, say("I moved to Lisbon, I work as a nurse. My cat passed away."), NS, { threadId: "t2" });
    expect(r2.updated.map((a) => a.key)).toEqual(["profile"]);
    expect(userText(model.calls[1])).toContain('"location": "Berlin"');
    const items = await store.search(NS);
    expect(items).toHaveLength(1);
    expect(items[0].key).toBe("profile");
    expect(items[0].value).toEqual({
      text: "name: Ann\nlocation: Lisbon\noccupation: nurse",
      profile: { name: "Ann", location: "Lisbon", occupation: "nurse" },
      source: "extractor",
      thread: "t2",
    });
  });

  it("a garbage reply leaves the profile untouched", async () => {
    const logger = recordingLogger();
    const model = new ScriptedChatModel({ turns: ['{"name": "Ann"}', "I think the user is Ann?"] });
    const extractor = new MemoryExtractor({ model, mode: "profile", logger });
    const store = memoryStore();
    await extractor.save(store, say("I'm Ann"), NS);
    await extractor.save(store, say("hello"), NS);
    expect((await store.get(NS, "profile"))?.value.profile).toEqual({ name: "Ann" });
    expect(logger.warnings).toHaveLength(1);
  });

  it("drops fields that look like secrets, and extract() returns readable lines", async () => {
    const logger = recordingLogger();
    const model = new ScriptedChatModel({ turns: ['{"name": "Ann", "password": "hunter2", "likes": ["tea", "jazz"]}'] });
    const extractor = new MemoryExtractor({ model, mode: "profile", logger });
    expect(await extractor.extract(say("..."))).toEqual(["name: Ann", "likes: tea, jazz"]);
    expect(logger.warnings.join("")).toMatch(/password/);
  });

  it("merge and render are plain functions", () => {
    expect(mergeProfile({ a: 1, b: 2 }, { b: 3, c: null })).toEqual({ a: 1, b: 3 });
    expect(renderProfile({ preferred_language: "pt", kids: ["Ana", "Rui"] })).toBe("preferred language: pt\nkids: Ana, Rui");
  });
});
