/**
 * The quick start (examples/quickstart/main.ts), spawned as `npm run
 * quickstart` runs it. Offline, its chat model is the SCRIPTED STAND-IN it
 * names on screen; the store, the USE-lite embedder, the extractor and the
 * SQLite checkpointer are real. With OPENAI_BASE_URL the same file talks to
 * an OpenAI-compatible server through ChatOpenAI; here that server is a
 * TEST DOUBLE on 127.0.0.1 with scripted answers (the only stand-in).
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONSOLIDATION_PROMPT, DEFAULT_EXTRACTION_PROMPT, MEMORY_CONTEXT_HEADER } from "../../src/index.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { collectOutput } from "../helpers/spawn-child.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "../..");
const MAIN = path.join(root, "examples/quickstart/main.ts");

function quickstart(dataDir: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, dataDir], {
    cwd: root,
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return collectOutput(child);
}

let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = tempDir("quickstart-");
});
afterEach(() => tmp.cleanup());

/** The transcript lines of one thread. */
const lines = (stdout: string, thread: string) => stdout.split("\n").filter((l) => l.startsWith(`[${thread}]`));

describe("the quick start", () => {
  it("offline: names its scripted model, stores Monday's facts, and recalls them in Friday's new thread", async () => {
    const dataDir = path.join(tmp.dir, "data");
    const r = await quickstart(dataDir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("model: SCRIPTED STAND-IN, not a language model (canned replies, no network).");
    expect(r.stdout).toMatch(/^ {2}- User is vegetarian\.$/m);
    expect(r.stdout).toMatch(/^ {2}- User is allergic to peanuts\.$/m);
    const friday = lines(r.stdout, "friday");
    expect(friday[1]).toMatch(/^\[friday\] assistant: \(scripted\) From what I remember: .*User is vegetarian\./);
    expect(friday[1]).toContain("User is allergic to peanuts.");

    // The memories are in the store directory; the threads are separate in SQLite.
    const store = new HNSWStore({ path: path.join(dataDir, "memory"), withoutEmbedder: true });
    expect((await store.search(["users", "ada"], { limit: 10 })).map((i) => i.value.text).sort()).toEqual(["User is allergic to peanuts.", "User is vegetarian."]);
    await store.close();
    const saver = SqliteSaver.fromConnString(path.join(dataDir, "threads.sqlite"));
    const fridayThread = await saver.getTuple({ configurable: { thread_id: "friday", checkpoint_ns: "" } });
    const messages = fridayThread!.checkpoint.channel_values.messages as { content: unknown }[];
    expect(messages.map((m) => m.content)).toEqual(["What should I cook for dinner tonight?", expect.stringContaining("(scripted)")]);
    saver.db.close();

    // A second run: the facts are known already and not stored twice.
    const again = await quickstart(dataDir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.match(/^ {2}- /gm)).toHaveLength(2);
  });

  it("with OPENAI_BASE_URL, the same file runs through ChatOpenAI against an OpenAI-compatible server", async () => {
    const requests: { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[]; response_format?: unknown }[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        const request = JSON.parse(body);
        requests.push(request);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(completion(request)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const r = await quickstart(path.join(tmp.dir, "data"), { OPENAI_BASE_URL: baseURL, OPENAI_MODEL: "local-test-double" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe(`model: local-test-double at ${baseURL}`);
      expect(r.stdout).not.toContain("SCRIPTED");
      expect(r.stdout).toMatch(/^ {2}- User is vegetarian\.$/m);
      expect(lines(r.stdout, "friday")[1]).toBe("[friday] assistant: (local server) You are vegetarian, so: mushroom risotto.");
      // Friday's model call carried Monday's memory, recalled from the store.
      const fridayCall = requests.find((q) => q.messages.at(-1)?.content === "What should I cook for dinner tonight?")!;
      expect(fridayCall.messages[0].content).toContain(MEMORY_CONTEXT_HEADER);
      expect(fridayCall.messages[0].content).toContain("User is vegetarian.");
    } finally {
      server.close();
    }
  });
});

/** The TEST DOUBLE's answer to one chat completion request: scripted by the prompt it sees. */
function completion(request: { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] }) {
  const system = request.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
  const user = request.messages.at(-1)!.content;
  let structured: unknown;
  let content = "";
  if (system.includes(DEFAULT_EXTRACTION_PROMPT)) {
    structured = { facts: [...user.matchAll(/\bI'm ([a-z ]+?)(?= and |[.!]|$)/g)].map((m) => `User is ${m[1]}.`) };
  } else if (system.includes(CONSOLIDATION_PROMPT)) {
    structured = { decisions: [...user.matchAll(/^(f\d+): (.*)$/gm)].map(([, fact, text]) => ({ fact, action: "ADD", id: null, text })) };
  } else {
    content = system.includes("User is vegetarian.") ? "(local server) You are vegetarian, so: mushroom risotto." : "(local server) Noted.";
  }
  const tool = request.tools?.[0]?.function.name;
  const message =
    structured === undefined
      ? { role: "assistant", content }
      : tool
        ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tool, arguments: JSON.stringify(structured) } }] }
        : { role: "assistant", content: JSON.stringify(structured) };
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "local-test-double",
    choices: [{ index: 0, message, finish_reason: tool && structured !== undefined ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}
