import { HumanMessage } from "@langchain/core/messages";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { cursorNamespace } from "../../src/extract/cursor.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { NS, userText } from "../extract/support.js";
import { DIMS, storeOverride } from "../graph/stores.js";

/**
 * The graph tests (callModel, the memory tools, withMemory), the episode
 * tests and the extractor's consolidation and cursor, over
 * PostgresMemoryStore on a pool of the caller's (PGlite or the real server).
 * ScriptedChatModel and FakeEmbeddings are TEST DOUBLEs; store and engine
 * are real. Call it at the top of a test file, then `await` what it returns.
 */
export async function graphSuiteOverPostgres(backend: { pool: () => Promise<pg.Pool>; freshSchema: () => string }): Promise<void> {
  async function pgStore() {
    const pool = await backend.pool();
    const schema = backend.freshSchema();
    const embeddings = new FakeEmbeddings({ dims: DIMS });
    const store = new PostgresMemoryStore({ pool, schema, index: { dims: DIMS, embeddings, fields: ["text"] } });
    return {
      store,
      embeddings,
      cleanup: async () => {
        await store.close();
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  }

  storeOverride.factories = [{ name: "PostgresMemoryStore", make: () => pgStore() }];
  await import("../graph/call-model.test.js");
  await import("../graph/tools.test.js");
  await import("../graph/with-memory.test.js");
  await import("../episodes/episodes.test.js");

  describe("extractor on PostgresMemoryStore", () => {
    it("ADD, UPDATE, cursor and recall; the cursor never shows up in recall or listNamespaces", async () => {
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
        // The cursor's namespace is bookkeeping: hidden from listNamespaces as HNSWStore hides it.
        expect(await store.listNamespaces()).toEqual([NS]);
        expect(await store.listNamespaces({ prefix: [cursorNamespace(NS)[0]] })).toEqual([cursorNamespace(NS)]);
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
}
