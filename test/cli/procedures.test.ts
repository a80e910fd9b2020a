/**
 * `langgraph-memory procedures …`, the real CLI spawned (under tsx) on a real
 * HNSWStore directory (FakeEmbeddings, a TEST DOUBLE embedder, seeds it).
 */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { listFeedback, recordFeedback } from "../../src/procedures/feedback.js";
import { ProcedureOptimizer } from "../../src/procedures/optimizer.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { runCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 300_000 });

let tmp: { dir: string; cleanup: () => void };
let dir: string;
const open = () => new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
beforeEach(async () => {
  tmp = tempDir("cli-procedures-");
  dir = path.join(tmp.dir, "store");
  const store = open();
  await setProcedure(store, { agentId: "bot" }, { instructions: "Be brief.", reason: "launch" });
  await setProcedure(store, { agentId: "bot" }, { instructions: "Be brief.\nAlways answer in uppercase.", reason: "bad feedback", source: "optimizer:metaprompt", feedbackIds: ["fb-1"] });
  await setProcedure(store, { agentId: "bot", userId: "ann.lee@x.com" }, { instructions: "Answer in French.", reason: "Ann asked" });
  await store.close();
});
afterEach(() => tmp.cleanup());

describe("langgraph-memory procedures", () => {
  it("lists agents, shows, diffs and restores a version; bad versions fail with one line", async () => {
    const list = await runCli(["--path", dir, "--json", "procedures", "list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([{ agentId: "bot", agentWide: true, users: ["ann.lee@x.com"] }]);

    const diff = await runCli(["--path", dir, "procedures", "diff", "bot", "1"]);
    expect(diff.stdout).toBe("--- version 1\n+++ version 2\n  Be brief.\n+ Always answer in uppercase.\n");

    const restore = await runCli(["--path", dir, "--json", "procedures", "restore", "bot", "1", "--reason", "uppercase was wrong"]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ version: 3, source: "restore", restoredFrom: 1, reason: "uppercase was wrong", instructions: "Be brief." });

    const history = await runCli(["--path", dir, "procedures", "history", "bot"]);
    expect(history.stdout.split("\n").slice(2, 5).map((l) => l.split(/\s+/)[0])).toEqual(["3", "2", "1"]);
    expect(history.stdout).toContain("restore of v1");

    const user = await runCli(["--path", dir, "procedures", "show", "bot", "--user", "ann.lee@x.com"]);
    expect(user.stdout).toContain("Answer in French.");

    const bad = await runCli(["--path", dir, "procedures", "restore", "bot", "9"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain("no version 9");

    const store = open();
    try {
      expect(await getProcedure(store, { agentId: "bot" })).toMatchObject({ version: 3, instructions: "Be brief." });
    } finally {
      await store.close();
    }
  });

  it("lists proposals kept for review, applies one and dismisses another", async () => {
    const ann = { agentId: "bot", userId: "ann.lee@x.com" };
    const rewrite = (p: string) => JSON.stringify({ rationale: "r", instructions: Array.from({ length: 6 }, (_, i) => `${p} ${i + 1}.`).join("\n") });
    const store = open();
    let ids: string[];
    try {
      // A scripted TEST DOUBLE model proposes rewrites too large for maxChangedLines 2: each run is kept for review.
      const optimizer = new ProcedureOptimizer({ model: new ScriptedChatModel({ turns: [rewrite("Polite rule"), rewrite("Polite rule"), rewrite("Terse rule"), rewrite("Terse rule")] }), logger: { warn: () => {}, error: () => {} }, limits: { maxChangedLines: 2 } });
      ids = [];
      for (const correction of ["Be more polite.", "Be terse."]) {
        ids.push((await recordFeedback(store, { ...ann, threadId: correction, correction })).id);
        expect((await optimizer.learn(store, ann)).feedbackStatus).toBe("review");
      }
    } finally {
      await store.close();
    }

    const listed = await runCli(["--path", dir, "procedures", "reviews", "bot", "--user", ann.userId, "--diff"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(ids[0]);
    expect(listed.stdout).toContain(ids[1]);
    expect(listed.stdout).toMatch(/diff_too_large\s+\+6\/-1\s+1\s+ready/);
    expect(listed.stdout).toContain("+ Polite rule 1.");

    const applied = await runCli(["--path", dir, "--json", "procedures", "apply", "bot", ids[0], "--user", ann.userId, "--reason", "checked by hand"]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ record: { version: 2, source: "review", reason: "checked by hand" }, feedbackIds: [ids[0]] });

    // The second proposal was made from version 1: applying it now would undo the first.
    const stale = await runCli(["--path", dir, "procedures", "apply", "bot", ids[1], "--user", ann.userId]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/version 2.*version 1.*force/);
    expect((await runCli(["--path", dir, "procedures", "reviews", "bot", "--user", ann.userId])).stdout).toContain("stale (now v2)");

    const dismissed = await runCli(["--path", dir, "procedures", "dismiss", "bot", ids[1], "--user", ann.userId, "--reason", "no"]);
    expect(dismissed.code, dismissed.stderr).toBe(0);
    expect((await runCli(["--path", dir, "procedures", "reviews", "bot", "--user", ann.userId])).stdout).toContain("no proposals waiting for review");

    const check = open();
    try {
      expect((await getProcedure(check, ann))?.instructions).toBe(Array.from({ length: 6 }, (_, i) => `Polite rule ${i + 1}.`).join("\n"));
      expect((await listFeedback(check, { ...ann, pending: false })).map((r) => [r.id, r.status])).toEqual(expect.arrayContaining([[ids[0], "applied"], [ids[1], "rejected"]]));
    } finally {
      await check.close();
    }
  });
});
