import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { cursorNamespace } from "../../src/extract/cursor.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { NS, userText } from "./support.js";

// ScriptedChatModel and FakeEmbeddings are TEST DOUBLES; the store is the real HNSWStore on disk.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function openStore(dir?: string) {
  const path = dir ?? (await mkdtemp(join(tmpdir(), "extract-hnsw-")));
  if (!dir) dirs.push(path);
  return { path, store: new HNSWStore({ path, index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } }) };
}

describe("extractor on HNSWStore", () => {
  it("UPDATE, cursor and recall survive a reopen; the cursor never shows up in recall", async () => {
    const model = new ScriptedChatModel({
      turns: ['["User lives in Berlin."]', '["User moved to Lisbon."]', '[{"fact": "f1", "action": "UPDATE", "id": "m1", "text": "User lives in Lisbon."}]', '["User plays chess."]', '[{"fact": "f1", "action": "ADD"}]'],
    });
    const extractor = new MemoryExtractor({ model });
    const { path, store } = await openStore();
    const thread = [new HumanMessage({ id: "1", content: "I live in Berlin" })];
    await extractor.save(store, thread, NS, { threadId: "t1" });
    thread.push(new HumanMessage({ id: "2", content: "I moved to Lisbon" }));
    await extractor.save(store, thread, NS, { threadId: "t1" });
    await store.close();

    const reopened = (await openStore(path)).store;
    try {
      const hits = await reopened.search(NS, { query: "where does the user live", limit: 10 });
      expect(hits.map((h) => h.value.text)).toEqual(["User lives in Lisbon."]);
      expect(await reopened.get(cursorNamespace(NS), "t1")).not.toBeNull();
      thread.push(new HumanMessage({ id: "3", content: "I play chess" }));
      await extractor.save(reopened, thread, NS, { threadId: "t1" });
      expect(userText(model.calls[3])).toBe("Conversation:\nUser: I play chess");
      const all = await reopened.search(NS, { limit: 10 });
      expect(all.map((h) => h.value.text).sort()).toEqual(["User lives in Lisbon.", "User plays chess."]);
    } finally {
      await reopened.close();
    }
  });

  it("passes ttl (minutes) on the put operation", async () => {
    let now = Date.parse("2025-01-01T00:00:00Z");
    const path = await mkdtemp(join(tmpdir(), "extract-hnsw-"));
    dirs.push(path);
    const store = new HNSWStore({ path, index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] }, clock: () => now });
    try {
      const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User is at a conference this week."]'] }) });
      await extractor.save(store, [{ role: "user", content: "I'm at a conference this week" }], NS, { ttl: 60 * 24 * 7 });
      expect(await store.search(NS)).toHaveLength(1);
      now += 8 * 24 * 3600 * 1000;
      expect(await store.search(NS)).toHaveLength(0);
    } finally {
      await store.close();
    }
  });
});
