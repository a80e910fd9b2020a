/**
 * `langgraph-memory procedures …`, the real CLI spawned (under tsx) on a real
 * HNSWStore directory (FakeEmbeddings, a TEST DOUBLE embedder, seeds it).
 */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
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
});
