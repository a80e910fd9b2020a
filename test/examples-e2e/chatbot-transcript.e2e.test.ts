/**
 * The interactive chatbot (examples/chatbot/main.ts) as a user meets it, fed
 * a piped transcript. The chat model is the offline scripted stand-in
 * (OfflineDemoModel, a TEST DOUBLE for an LLM) or a real ChatOpenAI pointed
 * at a closed port; the store, USE-lite embedder, MemoryExtractor and its
 * consolidation path are real.
 */
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp-dir.js";
import { collectOutput, type ChildOutput } from "../helpers/spawn-child.js";

const root = path.resolve(import.meta.dirname, "../..");

function chat(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<ChildOutput> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "examples/chatbot/main.ts"), ...args], {
    cwd: root,
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return collectOutput(child, input);
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe("examples/chatbot main.ts with piped input", () => {
  let tmp: { dir: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tempDir("chatbot-transcript-");
  });
  afterEach(() => tmp.cleanup());

  it("echoes each line, and 'Actually, I moved to Lisbon last month.' UPDATEs 'lives in Berlin' through the real consolidation", async () => {
    const { code, stdout, stderr } = await chat(
      ["--data", tmp.dir, "--user", "42"],
      "I live in Berlin.\nActually, I moved to Lisbon last month.\n/memories\n/quit\n",
      {},
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("[user 42 · main] you> I live in Berlin.");
    expect(stdout).toContain("(memory + User lives in Berlin.)");
    expect(stdout).toContain("[user 42 · main] you> Actually, I moved to Lisbon last month.");
    expect(stdout).toContain("(memory ~ User lives in Lisbon. (was: User lives in Berlin.))");
    const memories = stdout.slice(stdout.indexOf("you> /memories"));
    expect(memories).toContain("User lives in Lisbon.");
    expect(memories).not.toContain("Berlin");
  }, 240_000);

  it("an unreachable chat model: the URL, how often it was tried, and what to check; a base URL without a key: a one-line hint", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const [down, hint] = await Promise.all([
      chat(["--data", path.join(tmp.dir, "a")], "hello there\n/quit\n", { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: url }),
      chat(["--data", path.join(tmp.dir, "b")], "/quit\n", { OPENAI_BASE_URL: url }),
    ]);
    expect(down.code).toBe(0);
    const line = down.stderr.split("\n").find((l) => l.startsWith("error:"))!;
    expect(line).toContain(`could not reach the chat model at ${url}`);
    expect(line).toContain("tried 3 times: 1 call + 2 retries");
    expect(line).toMatch(/Check that the server is running .* OPENAI_BASE_URL .* OPENAI_API_KEY/);
    const hintLines = hint.stdout.split("\n").filter((l) => l.startsWith("hint:"));
    expect(hintLines).toHaveLength(1);
    expect(hintLines[0]).toContain(`OPENAI_BASE_URL is set (${url}) but OPENAI_API_KEY is not`);
    expect(hint.stdout).toContain("offline demo model");
  }, 240_000);
});
