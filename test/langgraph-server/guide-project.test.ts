/**
 * docs/langgraph-server.md's "In your own project" steps, followed in a
 * scratch project OUTSIDE the repository: its langgraph.json, .env,
 * src/graph.ts and src/auth.ts are the guide's blocks as written, the server
 * is started with the guide's `npx @langchain/langgraph-cli dev` (on a free
 * port, offline: no browser, no watcher, analytics off as the guide says),
 * and the guide's SDK client runs as written (its port substituted).
 *
 * The project's node_modules links the repository's installed packages (no
 * network here), and `langgraph-hnsw-memory` in it re-exports the package's
 * source. The only stand-in: the guide's ChatOpenAI, replaced by the
 * examples' OFFLINE SCRIPTED STAND-IN (a rule-based fake, not a language model).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "./dev-server.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const TIMEOUT = 240_000;

/** The guide's steps: each fenced block with the file its step names (`**\`src/graph.ts\`**`), or its language. */
function guideBlocks(): { file: string | undefined; lang: string; code: string }[] {
  const doc = fs.readFileSync(path.join(ROOT, "docs/langgraph-server.md"), "utf8");
  const section = doc.slice(doc.indexOf("## In your own project"), doc.indexOf("## What the tests cover"));
  const out: { file: string | undefined; lang: string; code: string }[] = [];
  for (const step of section.split(/\n(?=\d+\. )/)) {
    const file = /^\d+\. \*\*`([^`]+)`\*\*/.exec(step)?.[1];
    for (const m of step.matchAll(/^( *)```(\w+)\n([\s\S]*?)^\1```$/gm)) {
      out.push({ file, lang: m[2], code: m[3].split("\n").map((l) => l.slice(m[1].length)).join("\n") });
    }
  }
  return out;
}

/** A node_modules of links to the repository's packages, plus langgraph-hnsw-memory over the source. */
function linkModules(project: string): void {
  const modules = path.join(project, "node_modules");
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(path.join(ROOT, "node_modules"))) {
    if (entry === ".bin" || entry === ".package-lock.json") continue;
    fs.symlinkSync(path.join(ROOT, "node_modules", entry), path.join(modules, entry));
  }
  const pkg = path.join(modules, "langgraph-hnsw-memory");
  fs.mkdirSync(pkg);
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "langgraph-hnsw-memory", type: "module", exports: { ".": "./index.ts", "./agent": "./agent.ts" } }));
  fs.writeFileSync(path.join(pkg, "index.ts"), `export * from ${JSON.stringify(path.join(ROOT, "src/index.ts"))};\n`);
  fs.writeFileSync(path.join(pkg, "agent.ts"), `export * from ${JSON.stringify(path.join(ROOT, "src/agent/index.ts"))};\n`);
}

describe("the langgraph dev guide, in a project of one's own", () => {
  let project: string;
  let server: DevServer | undefined;
  const blocks = guideBlocks();

  beforeAll(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), "lg-guide-"));
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "my-agent", version: "1.0.0", type: "module" }, null, 2));
    linkModules(project);
    fs.mkdirSync(path.join(project, "src"));
    for (const b of blocks) {
      if (b.lang === "json") fs.writeFileSync(path.join(project, "langgraph.json"), b.code);
      else if (b.lang === "bash" && b.code.includes("LANGGRAPH_MEMORY_PATH=")) fs.writeFileSync(path.join(project, ".env"), b.code.replace(/^OPENAI_API_KEY=.*$/m, ""));
      else if (b.lang === "ts" && b.file === "src/graph.ts") {
        // The stand-in chat model (see the header) in place of ChatOpenAI; the rest as written.
        const offline = `import { OfflineDemoModel } from ${JSON.stringify(path.join(ROOT, "examples/chatbot/offline-model.ts"))};`;
        const code = b.code.replace('import { ChatOpenAI } from "@langchain/openai";', offline).replace('new ChatOpenAI({ model: "gpt-4o-mini" })', "new OfflineDemoModel()");
        expect(code).not.toContain("ChatOpenAI");
        fs.writeFileSync(path.join(project, b.file), code);
      } else if (b.lang === "ts" && b.file) fs.writeFileSync(path.join(project, b.file), b.code);
    }
    fs.writeFileSync(path.join(project, ".gitignore"), ".langgraph_api\n");
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(project, { recursive: true, force: true });
  });

  it("has the steps the test follows", () => {
    expect(blocks.map((b) => b.file ?? b.lang)).toEqual(["bash", "langgraph.json", ".env", "src/graph.ts", "src/auth.ts", "bash", "client.ts"]);
    expect(blocks[0].code).toMatch(/npm install -D @langchain\/langgraph-cli@~1\.5\.1/);
    expect(blocks[5].code).toMatch(/^LANGGRAPH_CLI_NO_ANALYTICS=1 npx @langchain\/langgraph-cli dev --port 2024 --no-browser$/m);
  });

  it("serves the graph from the guide's command, and the guide's SDK client sees memory across threads", async () => {
    server = await startDevServer(project, { LANGGRAPH_CLI_NO_ANALYTICS: "1", npm_config_offline: "true" }, ["npx", "--offline", "@langchain/langgraph-cli"]);
    const client = blocks.find((b) => b.file === "client.ts")!.code.replace("http://localhost:2024", server.url);
    fs.writeFileSync(path.join(project, "client.ts"), client);
    const { stdout } = await run(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "client.ts"], { cwd: project, timeout: TIMEOUT });
    const [first, second] = stdout.trim().split("\n");
    expect(first).toBe("Thanks, good to know.");
    expect(second).toContain("User is vegetarian.");
    expect(fs.existsSync(path.join(project, ".memory", "store.json"))).toBe(true);
  }, TIMEOUT);
});
