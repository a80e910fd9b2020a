import { HumanMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryExtractor } from "../../../src/extract/extractor.js";
import { cursorNamespace } from "../../../src/extract/cursor.js";
import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../../helpers/scripted-chat-model.js";
import { NS, userText } from "../../extract/support.js";
import { DIMS, storeOverride } from "../../graph/stores.js";
import { parseChatArgs } from "../../../examples/chatbot/args.js";
import { OfflineDemoModel } from "../../../examples/chatbot/offline-model.js";
import { ChatSession } from "../../../examples/chatbot/session.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { startPglite, type PgliteServer } from "./pglite.js";

/**
 * The graph tests (callModel, the memory tools, withMemory) rerun over
 * PostgresMemoryStore on one PGlite engine, plus the extractor's
 * consolidation and cursor on it. ScriptedChatModel and FakeEmbeddings are
 * TEST DOUBLEs; the store and the engine are real.
 */
// Started while the file is collected (no hook timeout: PGlite's cold start can take minutes on a loaded machine).
const started: Promise<PgliteServer> = startPglite();
const server = () => started;
afterAll(async () => {
  await (await started).stop();
});

async function pgStore(clock?: () => number) {
  const s = await server();
  const schema = s.freshSchema();
  const embeddings = new FakeEmbeddings({ dims: DIMS });
  const store = new PostgresMemoryStore({ pool: s.pool, schema, index: { dims: DIMS, embeddings, fields: ["text"] }, clock });
  return {
    store,
    embeddings,
    cleanup: async () => {
      await store.close();
      await s.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

storeOverride.factories = [{ name: "PostgresMemoryStore", make: () => pgStore() }];
await import("../../graph/call-model.test.js");
await import("../../graph/tools.test.js");
await import("../../graph/with-memory.test.js");

describe("extractor on PostgresMemoryStore", () => {
  it("ADD, UPDATE, cursor and recall; the cursor never shows up in recall; ttl reaches the table", async () => {
    const model = new ScriptedChatModel({
      turns: ['["User lives in Berlin."]', '["User moved to Lisbon."]', '[{"fact": "f1", "action": "UPDATE", "id": "m1", "text": "User lives in Lisbon."}]', '["User plays chess."]', '[{"fact": "f1", "action": "ADD"}]'],
    });
    const extractor = new MemoryExtractor({ model });
    const { store, cleanup } = await pgStore();
    try {
      const thread = [new HumanMessage({ id: "1", content: "I live in Berlin" })];
      await extractor.save(store, thread, NS, { threadId: "t1" });
      thread.push(new HumanMessage({ id: "2", content: "I moved to Lisbon" }));
      await extractor.save(store, thread, NS, { threadId: "t1" });
      const hits = await store.search(NS, { query: "where does the user live", limit: 10 });
      expect(hits.map((h) => h.value.text)).toEqual(["User lives in Lisbon."]);
      expect(await store.get(cursorNamespace(NS), "t1")).not.toBeNull();
      thread.push(new HumanMessage({ id: "3", content: "I play chess" }));
      await extractor.save(store, thread, NS, { threadId: "t1" });
      expect(userText(model.calls[3])).toBe("Conversation:\nUser: I play chess");
      const all = await store.search(NS, { limit: 10 });
      expect(all.map((h) => h.value.text).sort()).toEqual(["User lives in Lisbon.", "User plays chess."]);
    } finally {
      await cleanup();
    }
  });
});

describe("example chatbot with --postgres", () => {
  it("keeps a user's memories in PostgreSQL: written in one session, recalled in the next", async () => {
    const s = await server();
    const args = parseChatArgs(["--user", "42", "--postgres", s.url]);
    expect(args.postgres).toBe(s.url);
    expect(() => parseChatArgs(["--postgres", "mysql://x"])).toThrow(/postgres:\/\//);
    const dir = tempDir("chat-pg-");
    const embeddings = new FakeEmbeddings({ dims: DIMS });
    const open = async (userId: string) =>
      s.idle().then(() => ChatSession.open({ dataDir: dir.dir, userId, thread: "main", model: new OfflineDemoModel(), embeddings, dims: DIMS, postgres: args.postgres, logger: { warn: () => {}, error: () => {} } }));
    try {
      // PGlite serves one connection at a time here: hand ours back before the chatbot opens its own.
      const idle = await s.pool.connect();
      idle.release(true);
      const monday = await open("42");
      expect(monday.store).toBeInstanceOf(PostgresMemoryStore);
      await monday.send("I live in Lisbon and I have a dog named Rex.");
      await monday.close();
      const friday = await open("42");
      expect((await friday.memories()).map((m) => m.text).sort()).toEqual(["User has a dog named Rex.", "User lives in Lisbon."]);
      const turn = await friday.send("Where do I live?");
      expect(turn.context).toMatch(/Lisbon/);
      await friday.close();
      const other = await open("7");
      expect(await other.memories()).toEqual([]);
      await other.forgetAll();
      await other.close();
    } finally {
      await s.idle();
      await s.pool.query("DROP TABLE IF EXISTS memory_vectors, memory_items, memory_meta, memory_migrations CASCADE");
      dir.cleanup();
    }
  });
});
