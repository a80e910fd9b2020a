/**
 * The CLI shows kinds as kinds and forgets by the layout: `ls` lists memory
 * namespaces, not learned instructions or their feedback (those are
 * `procedures list` and `ls --all`); `forget --user --layout FILE --json`
 * erases every kind of the layout, including one added in the file, and
 * reports per kind. The real CLI process on a real HNSWStore directory;
 * FakeEmbeddings is a TEST DOUBLE.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { setProcedure } from "../../src/procedures/store.js";
import { recordFeedback } from "../../src/procedures/feedback.js";
import { allBytes } from "../helpers/all-bytes.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { runCli } from "./run-cli.js";

let dir: string;
let cleanup: () => void;
beforeEach(async () => {
  ({ dir, cleanup } = tempDir("cli-layout-"));
});
afterEach(() => cleanup?.());

describe("langgraph-memory and the memory layout", () => {
  it("ls hides learned instructions and feedback; forget --user --layout erases every kind, an added one too", async () => {
    const storeDir = path.join(dir, "store");
    const store = new HNSWStore({ path: storeDir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    await store.put(["users", "42"], "tea", { text: "likes tea" });
    await store.put(["notes", "42"], "n", { text: "cliaddedkindword55" });
    await setProcedure(store, { agentId: "bot", userId: "42" }, { instructions: "clirulewordsecret", reason: "r" });
    await recordFeedback(store, { agentId: "bot", userId: "42", threadId: "t", correction: "clifeedbackword" });
    await store.close();
    const ls = await runCli(["--path", storeDir, "--json", "ls"]);
    expect(ls.code, ls.stderr).toBe(0);
    expect((JSON.parse(ls.stdout) as { namespace: string[] }[]).map((r) => r.namespace.join("."))).toEqual(["notes.42", "users.42"]);
    const layoutFile = path.join(dir, "layout.json");
    fs.writeFileSync(layoutFile, JSON.stringify({ extra: [{ name: "notes", namespace: ["notes", "{user_id}"] }] }));
    const forget = await runCli(["--path", storeDir, "--json", "forget", "--user", "42", "--layout", layoutFile, "--yes"]);
    expect(forget.code, forget.stderr).toBe(0);
    const report = JSON.parse(forget.stdout) as { kinds: Record<string, { items: number; bookkeeping: number; versions: number }>; kept: string[] };
    expect(report.kinds.facts.items).toBe(1);
    expect(report.kinds.notes.items).toBe(1);
    expect(report.kinds.procedures).toMatchObject({ items: 1, bookkeeping: 1 });
    expect(report.kept.join(" ")).toMatch(/procedures/);
    const bytes = allBytes(storeDir);
    for (const word of ["cliaddedkindword55", "clirulewordsecret", "clifeedbackword", "likes tea"]) expect(bytes, word).not.toContain(word);
    const bad = await runCli(["--path", storeDir, "forget", "--user", "42", "--layout", path.join(dir, "missing.json"), "--yes"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--layout .*no such file/);
  });
});
