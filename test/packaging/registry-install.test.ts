/**
 * The README's install lines, as a user runs them: `npm pack`, then an empty
 * project OUTSIDE the repository (`npm init -y`), the README's Install block
 * run line by line (the tarball in place of the package name) with npm 11
 * (this machine's) and npm 10 (`npx -y npm@10`, what Node 20 and 22 ship),
 * from the npm registry: no warning of any kind (no EBADENGINE, no skipped
 * install script), hnswlib-node built. Then docs/install.md's "Check the
 * install" (`npx langgraph-memory … init`) and the README's store snippet on
 * that directory: found by meaning, with a score.
 *
 * Needs the npm registry (the one network this project's CI has); slow (two
 * installs with a native build): part of `npm run test:packaging`.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const TIMEOUT = 600_000;

/** The ```bash block of a Markdown section, as lines without comments. */
function bashLines(file: string, heading: string): string[] {
  const doc = fs.readFileSync(path.join(ROOT, file), "utf8");
  const section = doc.slice(doc.indexOf(heading));
  const block = /```bash\n([\s\S]*?)```/.exec(section)![1];
  return block.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter(Boolean);
}

/** Runs one documented shell line in `cwd` with `npm` standing for `npmCommand` (npx too). */
async function shell(line: string, cwd: string, npmCommand: string[]): Promise<string> {
  const words = line.split(/\s+/);
  const argv = words[0] === "npm" ? [...npmCommand, ...words.slice(1)] : words[0] === "npx" ? [...npmCommand, "exec", "--", ...words.slice(1)] : words;
  const { stdout, stderr } = await run(argv[0], argv.slice(1), { cwd, timeout: TIMEOUT, env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" } });
  return stdout + stderr;
}

describe("the README's install lines from the npm registry", () => {
  let work: string;
  let tarball: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "registry-install-"));
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT, timeout: TIMEOUT, maxBuffer: 64 * 1024 * 1024 });
    tarball = path.join(work, (JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string }[])[0]!.filename);
  }, TIMEOUT);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  const install = bashLines("README.md", "## Install");
  const check = bashLines("docs/install.md", "## Check the install");

  it("the Install block is the two lines tested here", () => {
    expect(install).toEqual(["npm pkg set allowScripts.hnswlib-node=true --json", "npm install langgraph-hnsw-memory @langchain/langgraph @langchain/core"]);
    expect(check).toEqual(["npx langgraph-memory --path ./memory init", "npx langgraph-memory --path ./memory stats"]);
  });

  it.each([
    ["npm 11", ["npm"]],
    ["npm 10", ["npx", "-y", "npm@10"]],
  ])("%s: a clean install, init, and the README's store snippet", async (_name, npm) => {
    const project = path.join(work, npm.join("-").replace(/[^a-z0-9]+/gi, "_"));
    fs.mkdirSync(project);
    await shell("npm init -y", project, npm);
    let output = "";
    for (const line of install) output += await shell(line.replace(/\blanggraph-hnsw-memory\b/, tarball), project, npm);
    expect(output).not.toMatch(/npm (warn|WARN|ERR)|EBADENGINE|install script|skipped/i);
    expect(fs.existsSync(path.join(project, "node_modules/hnswlib-node/build/Release/addon.node"))).toBe(true);
    const manifest = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8")) as { allowScripts?: Record<string, unknown> };
    expect(manifest.allowScripts).toEqual({ "hnswlib-node": true });

    const [init, stats] = [await shell(check[0]!, project, npm), await shell(check[1]!, project, npm)];
    expect(init).toMatch(/created an empty store in .*memory \(embedder UniversalSentenceEncoderEmbeddings:.*, 512 dims\)/);
    expect(stats).toMatch(/fields \["text"\]/);

    // The README's "A store for compile({ store })" block, as written, on the directory init made.
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const snippet = /```ts\n(import \{ HNSWStore, localMemoryIndex \} from "langgraph-hnsw-memory";\n[\s\S]*?)```/.exec(readme)![1];
    fs.writeFileSync(path.join(project, "snippet.mjs"), `${snippet}\nconsole.log(JSON.stringify({ key: hit.key, score: hit.score }));\nawait store.close();\n`);
    const { stdout } = await run(process.execPath, ["snippet.mjs"], { cwd: project, timeout: TIMEOUT });
    const hit = JSON.parse(stdout.trim().split("\n").pop()!) as { key: string; score: number };
    expect(hit.key).toBe("diet");
    expect(hit.score).toBeGreaterThan(0.2);
  }, TIMEOUT);
});
