/**
 * End-to-end tests of the example chatbot. They spawn the real entry points
 * (examples/chatbot/demo.ts and main.ts) as child processes. The chat model
 * in them is the offline scripted stand-in (OfflineDemoModel, a test double
 * for an LLM); the store, the USE-lite embedder, the extractor and the SQLite
 * checkpointer are real, and the files they leave are inspected here.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { MEMORY_CONTEXT_HEADER } from "../../src/graph/format-memories.js";
import { tempDir } from "../helpers/temp-dir.js";
import { collectOutput } from "../helpers/spawn-child.js";

const root = path.resolve(import.meta.dirname, "../..");
const FACTS = ["User is vegetarian.", "User is allergic to peanuts."];

function run(script: string, args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  // No API key: the examples must run offline whatever the machine's environment.
  const env = { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, script), ...args], { cwd: root, env, stdio: ["pipe", "pipe", "pipe"] });
  return collectOutput(child, input).then((out) => ({ ...out, ms: Date.now() - started }));
}

/** The demo's output split by its `=== heading ===` lines; keys are the heading's leading number or word. */
function sections(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = stdout.split(/^=== (.+?) ===$/m);
  for (let i = 1; i < parts.length; i += 2) out.set(parts[i].split(/[. ]/)[0], parts[i + 1]);
  return out;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("examples/chatbot", () => {
  let tmp: { dir: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tempDir("chatbot-e2e-");
  });
  afterEach(() => tmp.cleanup());

  it("npm run demo: user 42's facts are recalled on friday and by a second process, never for user 7, and leave the disk after /forget-all", async () => {
    const { code, stdout, stderr, ms } = await run("examples/chatbot/demo.ts", ["--data", tmp.dir]);
    expect(code, `demo failed:\n${stdout}\n${stderr}`).toBe(0);
    expect(ms).toBeLessThan(60_000);
    expect(stdout).toContain("offline demo model: replies are scripted; memory is real");
    expect(stdout).not.toContain("CHECK FAILED");

    const s = sections(stdout);
    // 2: the extractor's writes, read back from the store.
    for (const fact of FACTS) expect(s.get("2")).toContain(`] ${fact}`);
    // 3: the context the model received on friday (a new thread) holds both facts.
    expect(s.get("3")).toContain(MEMORY_CONTEXT_HEADER);
    for (const fact of FACTS) expect(s.get("3")).toContain(`- ${fact}`);
    // 4: user 7 gets none of them, and no memory context at all.
    expect(s.get("4")).not.toContain(MEMORY_CONTEXT_HEADER);
    expect(s.get("4")).not.toMatch(/vegetarian|allergic/);
    // 5: another process, after reopening the directory, recalls both.
    expect(s.get("5")).toMatch(/process \d+ opened .* 2 memories for user 42/);
    expect(s.get("5")).toContain(MEMORY_CONTEXT_HEADER);
    for (const fact of FACTS) expect(s.get("5")).toContain(`- ${fact}`);
    // 6: forget-all.
    expect(s.get("6")).toMatch(/forgot 2 memories and \d+ threads of user 42/);

    // The files left on disk: none holds the facts or what user 42 said.
    const files = filesUnder(tmp.dir);
    expect(files.map((f) => path.relative(tmp.dir, f))).toEqual(expect.arrayContaining(["threads.sqlite", path.join("memory", "store.json")]));
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const needle of [...FACTS, "vegetarian", "allergic to peanuts"]) {
        expect(bytes.includes(Buffer.from(needle)), `${needle} still in ${file}`).toBe(false);
      }
    }
    // The store itself agrees, reopened here, and SQLite has no thread of user 42 left.
    const store = new HNSWStore({ path: path.join(tmp.dir, "memory"), index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } });
    try {
      expect(await store.count(["users", "42"])).toBe(0);
      expect(await store.count(["memory_cursors", "users", "42"])).toBe(0);
    } finally {
      await store.close();
    }
    const db = SqliteSaver.fromConnString(path.join(tmp.dir, "threads.sqlite")).db;
    try {
      const threads = (db.prepare("SELECT DISTINCT thread_id FROM checkpoints").all() as { thread_id: string }[]).map((r) => r.thread_id);
      expect(threads.filter((t) => t.startsWith("42/"))).toEqual([]);
      expect(threads).toContain("7/friday");
    } finally {
      db.close();
    }
  });

  it("the interactive chatbot over stdin: a fact from thread monday is listed by /memories and recalled in thread friday; /forget removes it", async () => {
    const lines = [
      "I'm vegetarian.",
      "/memories",
      "/thread friday",
      "What should I cook for dinner?",
      "/forget fact-does-not-exist",
      "/quit",
    ];
    const { code, stdout, stderr } = await run("examples/chatbot/main.ts", ["--user", "42", "--thread", "monday", "--data", tmp.dir], lines.join("\n") + "\n");
    expect(code, `chat failed:\n${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toContain("offline demo model: replies are scripted; memory is real");
    expect(stdout).toContain("(memory + User is vegetarian.)");
    const listed = /\[(fact-[0-9a-f]+)\] User is vegetarian\./.exec(stdout);
    expect(listed).not.toBeNull();
    expect(stdout).toContain("switched to thread friday");
    // The scripted reply quotes the memory context it was given: the fact crossed threads.
    expect(stdout).toMatch(/bot> Going by what I remember \(User is vegetarian\.\)/);
    expect(stdout).toContain("no memory with key fact-does-not-exist");
    expect(stdout.trimEnd().endsWith("bye")).toBe(true);

    // A second session forgets the fact by its key; /memories is then empty.
    const second = await run("examples/chatbot/main.ts", ["--user", "42", "--data", tmp.dir], `/forget ${listed![1]}\n/memories\n/quit\n`);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`forgot [${listed![1]}]`);
    expect(second.stdout).toContain("(no memories)");
  });
});
