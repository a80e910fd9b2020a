/**
 * Learned instructions in the store: versions with provenance, restore,
 * bounds, listing, and erasure with the person. Real InMemoryStore and
 * HNSWStore (FakeEmbeddings, a TEST DOUBLE embedder) on a temp directory.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError, ProcedureChangeRejectedError } from "../../src/errors.js";
import { erasePerson } from "../../src/privacy/erase-person.js";
import { ProtectedStore } from "../../src/privacy/protected-store.js";
import { listHistory } from "../../src/privacy/history.js";
import { runAsActor } from "../../src/privacy/actor.js";
import { lineDiff } from "../../src/procedures/diff.js";
import { listFeedback, recordFeedback } from "../../src/procedures/feedback.js";
import { procedureHistory, restoreProcedure } from "../../src/procedures/history.js";
import { listProcedureAgents, listProcedureUsers } from "../../src/procedures/list.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { forgetUser } from "../../src/scope/forget-user.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const bot = { agentId: "bot" };
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("setProcedure / procedureHistory / restoreProcedure", () => {
  it("keeps every version with who, what and why, and restores any of them as a new version", async () => {
    const store = new InMemoryStore();
    await setProcedure(store, bot, { instructions: "Be brief.", reason: "style guide" });
    await runAsActor({ identity: "ops@example.com" }, () =>
      setProcedure(store, bot, { instructions: "Be brief.\nUse bullet points.", reason: "users asked", source: "optimizer:metaprompt", feedbackIds: ["fb-1"] }),
    );
    const third = await setProcedure(store, bot, { instructions: "Be brief.\nUse numbered lists.", reason: "changed my mind" });
    expect(third.record.version).toBe(3);
    expect(third.diff.text).toBe("  Be brief.\n- Use bullet points.\n+ Use numbered lists.");
    expect(third.record.diff).toEqual({ added: 1, removed: 1 });

    const history = await procedureHistory(store, bot);
    expect(history.map((h) => [h.version, h.source, h.reason])).toEqual([
      [3, "api", "changed my mind"],
      [2, "optimizer:metaprompt", "users asked"],
      [1, "api", "style guide"],
    ]);
    expect(history[1].feedbackIds).toEqual(["fb-1"]);
    expect(history[1].identity).toBe("ops@example.com");

    const restored = await restoreProcedure(store, bot, 2);
    expect(restored.record).toMatchObject({ version: 4, source: "restore", restoredFrom: 2, instructions: "Be brief.\nUse bullet points." });
    expect((await getProcedure(store, bot))?.instructions).toBe("Be brief.\nUse bullet points.");
    expect((await procedureHistory(store, bot)).length).toBe(4);
    await expect(restoreProcedure(store, bot, 9)).rejects.toThrow(InvalidArgumentError);
  });

  it("refuses empty, too long and too large changes with a named error, writing nothing", async () => {
    const store = new InMemoryStore();
    await setProcedure(store, bot, { instructions: "Rule one.", reason: "start" });
    const refused = async (instructions: string, limits?: { maxChars?: number; maxChangedLines?: number }) => {
      const err = await setProcedure(store, bot, { instructions, reason: "x", limits }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProcedureChangeRejectedError);
      return (err as ProcedureChangeRejectedError).reason;
    };
    expect(await refused("   ")).toBe("empty");
    expect(await refused("x".repeat(4001))).toBe("too_long");
    expect(await refused(Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n"))).toBe("diff_too_large");
    expect(await refused("Rule one.\nRule two.\nRule three.", { maxChangedLines: 1 })).toBe("diff_too_large");
    expect(await getProcedure(store, bot)).toMatchObject({ version: 1, instructions: "Rule one." });
    expect((await procedureHistory(store, bot)).length).toBe(1);
    await expect(setProcedure(store, bot, { instructions: "a", reason: "" })).rejects.toThrow(InvalidArgumentError);
    await expect(setProcedure(store, { agentId: "" }, { instructions: "a", reason: "r" })).rejects.toThrow(InvalidArgumentError);
    await expect(setProcedure(store, { agentId: "bot", name: "a@b" }, { instructions: "a", reason: "r" })).rejects.toThrow(InvalidArgumentError);
  });

  it("refuses a change built on an outdated version (conflict), and serialises concurrent changes", async () => {
    const store = new InMemoryStore();
    await setProcedure(store, bot, { instructions: "v1", reason: "r" });
    const err = await setProcedure(store, bot, { instructions: "v2", reason: "r", expectedVersion: 0 }).catch((e: unknown) => e);
    expect((err as ProcedureChangeRejectedError).reason).toBe("conflict");
    const results = await Promise.allSettled([2, 3, 4].map((n) => setProcedure(store, bot, { instructions: `v${n}`, reason: "r", expectedVersion: 1 })));
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(1);
    expect((await getProcedure(store, bot))?.version).toBe(2);
  });

  it("keeps per-user instructions apart from the agent's and from other users'", async () => {
    const store = new InMemoryStore();
    await setProcedure(store, { agentId: "bot" }, { instructions: "Agent rule.", reason: "r" });
    await setProcedure(store, { agentId: "bot", userId: "ann.lee@x.com" }, { instructions: "Ann's rule.", reason: "r" });
    await setProcedure(store, { agentId: "other" , userId: "bob" }, { instructions: "Bob's rule.", reason: "r" });
    expect((await getProcedure(store, { agentId: "bot", userId: "bob" }))).toBeUndefined();
    expect((await getProcedure(store, { agentId: "bot", userId: "ann.lee@x.com" }))?.instructions).toBe("Ann's rule.");
    expect(await listProcedureAgents(store)).toEqual([
      { agentId: "bot", agentWide: true, users: ["ann.lee@x.com"] },
      { agentId: "other", agentWide: false, users: ["bob"] },
    ]);
    expect(await listProcedureUsers(store, "bot")).toEqual(["ann.lee@x.com"]);
  });

  it("through a ProtectedStore with history, each version is kept once", async () => {
    const inner = new InMemoryStore();
    const store = new ProtectedStore(inner, { history: true });
    await setProcedure(store, bot, { instructions: "a", reason: "r" });
    await setProcedure(store, bot, { instructions: "b", reason: "r" });
    await setProcedure(store, bot, { instructions: "c", reason: "r" });
    expect((await listHistory(inner, ["procedures", "bot"], "instructions")).length).toBe(2);
    expect((await procedureHistory(store, bot)).map((r) => r.instructions)).toEqual(["c", "b", "a"]);
  });
});

describe("erasure", () => {
  async function seed(store: InMemoryStore | HNSWStore) {
    await setProcedure(store, { agentId: "bot" }, { instructions: "Agent rule.", reason: "r" });
    for (const agentId of ["bot", "helper"]) {
      await setProcedure(store, { agentId, userId: "ann" }, { instructions: "Ann v1", reason: "r" });
      await setProcedure(store, { agentId, userId: "ann" }, { instructions: "Ann v2", reason: "r" });
      await recordFeedback(store, { agentId, userId: "ann", threadId: "t", correction: "secret diet details" });
    }
    await setProcedure(store, { agentId: "bot", userId: "anna" }, { instructions: "Anna's", reason: "r" });
    await store.put(["users", "ann"], "m1", { text: "likes tea" });
  }

  it("erasePerson({ userId }) removes the person's instructions, their versions and feedback for every agent, and nothing else", async () => {
    const store = new InMemoryStore();
    await seed(store);
    const report = await erasePerson(store, { namespaces: [["users", "ann"]], userId: "ann" });
    expect(report.total).toBe(1 + 2 * (1 + 1 + 1)); // memory + per agent: current, one kept version, one feedback
    for (const agentId of ["bot", "helper"]) {
      expect(await getProcedure(store, { agentId, userId: "ann" })).toBeUndefined();
      expect(await procedureHistory(store, { agentId, userId: "ann" })).toEqual([]);
      expect(await listFeedback(store, { agentId, userId: "ann", pending: false })).toEqual([]);
    }
    expect((await getProcedure(store, { agentId: "bot", userId: "anna" }))?.instructions).toBe("Anna's");
    expect((await getProcedure(store, { agentId: "bot" }))?.instructions).toBe("Agent rule.");
  });

  it("forgetUser takes the user's procedures along (user_id from the values) on a real HNSWStore", async () => {
    const dir = await mkdtemp(join(tmpdir(), "procedures-forget-"));
    dirs.push(dir);
    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    try {
      await seed(store);
      const result = await forgetUser(store, ["users", "{user_id}"], { user_id: "ann" });
      expect(result.procedures).toBe(4); // two agents × (instructions, feedback)
      expect(await listProcedureAgents(store)).toEqual([{ agentId: "bot", agentWide: true, users: ["anna"] }]);
      expect(await store.search(["memory_history", "procedures", "bot", "ann"])).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("lineDiff", () => {
  it("marks kept, added and removed lines", () => {
    const d = lineDiff("a\nb\nc", "a\nc\nd");
    expect(d.lines).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: " ", text: "c" },
      { op: "+", text: "d" },
    ]);
    expect([d.added, d.removed]).toEqual([1, 1]);
    expect(lineDiff("", "x").text).toBe("+ x");
  });
});
