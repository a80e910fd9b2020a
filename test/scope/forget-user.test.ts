/**
 * Addressing a user's memories from app code (memoryNamespace), hiding the
 * extractor's cursor namespaces from listNamespaces, and "forget this person"
 * (forgetUser) removing memories and cursors, over HNSWStore and
 * InMemoryStore. The extractor's model is ScriptedChatModel (TEST DOUBLE);
 * embeddings are FakeEmbeddings (TEST DOUBLE).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { memoryNamespace } from "../../src/scope/memory-namespace.js";
import { forgetUser } from "../../src/scope/forget-user.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { InvalidArgumentError, MissingConfigError } from "../../src/errors.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { storeFactories, type StoreCase } from "../graph/stores.js";

const NS = ["users", "{user_id}"];
const ALICE = "alice@example.com";

describe("memoryNamespace", () => {
  it("encodes ids exactly as the nodes do", () => {
    expect(memoryNamespace(NS, { user_id: ALICE })).toEqual(["users", "alice@example%2Ecom"]);
    expect(memoryNamespace(["org", "{org}", "users", "{user_id}"], { org: 7, user_id: "a:b" })).toEqual(["org", "7", "users", "a%3Ab"]);
    expect(memoryNamespace(["team", "support"], {})).toEqual(["team", "support"]);
  });
  it("throws a named error for a missing value or bad input", () => {
    expect(() => memoryNamespace(NS, {})).toThrow(MissingConfigError);
    expect(() => memoryNamespace(NS, undefined as never)).toThrow(InvalidArgumentError);
  });
});

describe.each(storeFactories())("forgetUser and hidden cursors over $name", (factory) => {
  let c: StoreCase;
  beforeEach(async () => {
    c = await factory.make();
  });
  afterEach(async () => {
    await c.cleanup();
  });

  async function extractFor(user: string, fact: string) {
    const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: [JSON.stringify([fact])], fallback: "[]" }), structuredOutput: false, enableUpdates: false });
    await extractor.save(c.store, [new HumanMessage(fact)], memoryNamespace(NS, { user_id: user }), { threadId: "t1" });
  }

  it("app code reaches an e-mail user's memories with memoryNamespace; forgetUser removes memories and cursors, nobody else's", async () => {
    await extractFor(ALICE, "User is vegetarian.");
    await extractFor("bob", "User likes chess.");
    const alice = memoryNamespace(NS, { user_id: ALICE });
    expect((await c.store.search(alice, { limit: 10 })).map((i) => i.value.text)).toEqual(["User is vegetarian."]);
    expect(await c.store.get(["memory_cursors", ...alice], "t1")).not.toBeNull();

    const result = await forgetUser(c.store, NS, { user_id: ALICE });
    expect(result).toEqual({ namespace: alice, memories: 1, cursors: 1, history: 0, episodes: 0, episodeCursors: 0 });
    expect(await c.store.search(alice, { limit: 10 })).toHaveLength(0);
    expect(await c.store.get(["memory_cursors", ...alice], "t1")).toBeNull();
    expect(await c.store.search(["users", "bob"], { limit: 10 })).toHaveLength(1);
    expect(await c.store.get(["memory_cursors", "users", "bob"], "t1")).not.toBeNull();
    await expect(forgetUser(c.store, NS, {})).rejects.toThrow(MissingConfigError);
  });

  if (factory.name === "HNSWStore") {
    it("listNamespaces leaves the extractor's cursors out unless asked for by prefix", async () => {
      await extractFor("bob", "User likes chess.");
      expect(await c.store.listNamespaces()).toEqual([["users", "bob"]]);
      expect(await c.store.listNamespaces({ prefix: ["memory_cursors"] })).toEqual([["memory_cursors", "users", "bob"]]);
      expect(await c.store.listNamespaces({ suffix: ["bob"] })).toEqual([["users", "bob"]]);
    });
  }
});

describe("forgetUser on disk", () => {
  it("after forgetUser and compact, no file holds the person's text", async () => {
    const dir = tempDir("forget-user-");
    const store = new HNSWStore({ path: dir.dir, index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] } });
    try {
      const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: ['["User is allergic to penicillin."]'], fallback: "[]" }), structuredOutput: false, enableUpdates: false });
      await extractor.save(store, [new HumanMessage("I'm allergic to penicillin")], memoryNamespace(NS, { user_id: ALICE }), { threadId: "thread-alice" });
      await store.compact();
      await forgetUser(store, NS, { user_id: ALICE });
      await store.compact();
      for (const f of await readdir(dir.dir)) {
        const bytes = await readFile(join(dir.dir, f), "latin1");
        expect(bytes, f).not.toContain("penicillin");
        expect(bytes, f).not.toContain("thread-alice");
      }
    } finally {
      await store.close();
      dir.cleanup();
    }
  });
});
