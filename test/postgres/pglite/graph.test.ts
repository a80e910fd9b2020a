import { afterAll, describe, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../../helpers/fake-embeddings.js";
import { DIMS } from "../../graph/stores.js";
import { graphSuiteOverPostgres } from "../graph-suite.js";
import { parseChatArgs } from "../../../examples/chatbot/args.js";
import { OfflineDemoModel } from "../../../examples/chatbot/offline-model.js";
import { ChatSession } from "../../../examples/chatbot/session.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { startPglite, type PgliteServer } from "./pglite.js";

/**
 * The graph, episode and extractor tests (graph-suite.ts) over
 * PostgresMemoryStore on one PGlite engine, and the example chatbot with
 * --postgres on it. ScriptedChatModel and FakeEmbeddings are TEST DOUBLEs;
 * the store and the engine are real.
 */
// Started while the file is collected (no hook timeout: PGlite's cold start can take minutes on a loaded machine).
const started: Promise<PgliteServer> = startPglite();
const server = () => started;
let schemas = 0;
afterAll(async () => {
  await (await started).stop();
});

await graphSuiteOverPostgres({ pool: async () => (await server()).pool, freshSchema: () => `t${process.pid}_g${++schemas}` });

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
      await s.pool.query("DROP TABLE IF EXISTS memory_pending_vectors, memory_vectors, memory_items, memory_meta, memory_migrations CASCADE");
      dir.cleanup();
    }
  });
});
