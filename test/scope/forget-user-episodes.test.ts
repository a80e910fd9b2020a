/**
 * forgetUser with the episode template, end to end: a real createAgent with
 * memoryMiddleware (episodes + extraction) records a user's turns and facts
 * in a real HNSWStore on disk; forgetUser removes the memories, their kept
 * versions, the cursors, the episodes and the episode cursors, and after
 * compact() no file holds the text. Models are ScriptedChatModel (TEST
 * DOUBLE); embeddings are FakeEmbeddings (TEST DOUBLE).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { memoryMiddleware } from "../../src/agent/index.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { forgetUser, HNSWStore, memoryNamespace, MissingConfigError } from "../../src/index.js";
import { versionPut } from "../../src/privacy/history.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const NS = ["users", "{user_id}"];
const EPISODES = ["episodes", "{user_id}"];
const ALICE = "alice@example.com";
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("forgetUser with the episode template", () => {
  it("removes the user's memories, kept versions, cursors, episodes and episode cursors, and the text leaves the disk", async () => {
    const t = tempDir("forget-episodes-");
    cleanups.push(t.cleanup);
    const store = new HNSWStore({ path: join(t.dir, "memory"), index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }) } });
    cleanups.push(() => store.close());
    const checkpointer = SqliteSaver.fromConnString(join(t.dir, "threads.sqlite"));
    const extractor = new MemoryExtractor({
      model: new ScriptedChatModel({ turns: ['["User is allergic to penicillin."]', '["User plays chess."]'], fallback: "[]" }),
      structuredOutput: false,
      enableUpdates: false,
    });
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [], fallback: "Noted." }),
      tools: [],
      checkpointer,
      store,
      middleware: [memoryMiddleware({ namespace: NS, store, episodes: { namespace: EPISODES }, extract: extractor })],
    });
    const say = (user: string, thread: string, content: string) =>
      (agent.invoke as (i: unknown, c: unknown) => Promise<unknown>)({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: thread }, context: { user_id: user } });
    await say(ALICE, "thread-alice", "I am allergic to penicillin");
    await say("bob", "thread-bob", "I play chess on sundays");

    const alice = memoryNamespace(NS, { user_id: ALICE });
    const aliceEpisodes = memoryNamespace(EPISODES, { user_id: ALICE });
    // A kept version of Alice's memory (as an update by the extractor would leave).
    const [fact] = await store.search(alice, { limit: 1 });
    await store.batch([versionPut(fact!, { op: "update", source: "test" }), { namespace: alice, key: fact!.key, value: { text: "User is allergic to penicillin and amoxicillin." } }]);
    expect(await store.search(["memory_history", ...alice])).toHaveLength(1);
    expect(await store.search(aliceEpisodes)).toHaveLength(2);
    expect(await store.get(["episode_cursors", ...aliceEpisodes], "thread-alice")).not.toBeNull();

    await expect(forgetUser(store, NS, { user_id: ALICE }, { episodes: ["episodes", "{tenant}"] })).rejects.toThrow(MissingConfigError);
    expect(await store.search(alice)).toHaveLength(1); // nothing deleted on a missing value

    const result = await forgetUser(store, NS, { user_id: ALICE }, { episodes: EPISODES });
    expect(result).toEqual({ namespace: alice, memories: 1, cursors: 1, history: 1, episodeNamespace: aliceEpisodes, episodes: 2, episodeCursors: 1 });
    for (const prefix of [alice, aliceEpisodes, ["memory_history", ...alice], ["memory_cursors", ...alice], ["episode_cursors", ...aliceEpisodes]]) {
      expect(await store.search(prefix), JSON.stringify(prefix)).toHaveLength(0);
    }
    expect(await store.search(["episodes", "bob"])).toHaveLength(2);
    expect(await store.search(["users", "bob"])).toHaveLength(1);

    await store.compact();
    for (const f of await readdir(join(t.dir, "memory"))) {
      const bytes = await readFile(join(t.dir, "memory", f), "latin1");
      expect(bytes, f).not.toContain("penicillin");
      expect(bytes, f).not.toContain("thread-alice");
      expect(bytes, f).not.toContain("alice@example");
    }
  });
});
