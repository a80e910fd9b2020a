/**
 * Every ```ts block in README.md and docs/ is type-checked against the package's
 * source (the package's import paths mapped onto src/), so the docs cannot rot.
 * Blocks fenced as ```ts run are also executed (offline, in a temporary directory)
 * and must exit 0. A block that is a fragment declares what it needs
 * (`declare const model: BaseChatModel;`) — nothing is added silently.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { blockFileName, markdownFiles, tsBlocks, type CodeBlock } from "./code-blocks.js";
import { REFERENCE_FILES } from "./reference.js";

const root = path.resolve(import.meta.dirname, "../..");
/** The repository package.json names; the README links to its files on GitHub. */
const REPOSITORY = "https://github.com/langgraph-hnsw-memory/langgraph-hnsw-memory";

/** The repository-relative path a link to one of its files on GitHub names, else undefined. */
function repositoryFile(target: string): string | undefined {
  const m = /^https:\/\/(?:github\.com\/langgraph-hnsw-memory\/langgraph-hnsw-memory\/(?:blob|tree)|raw\.githubusercontent\.com\/langgraph-hnsw-memory\/langgraph-hnsw-memory)\/main\/(.*)$/.exec(target);
  return m ? decodeURIComponent(m[1]) : undefined;
}
const gen = path.join(root, "test/docs/.generated");

const PATHS: Record<string, string[]> = {
  "langgraph-hnsw-memory": ["src/index.ts"],
  "langgraph-hnsw-memory/agent": ["src/agent/index.ts"],
  "langgraph-hnsw-memory/server": ["src/server/index.ts"],
  "langgraph-hnsw-memory/remote": ["src/store/remote/index.ts"],
  "langgraph-hnsw-memory/postgres": ["src/store/postgres/index.ts"],
};

function collect(): CodeBlock[] {
  return markdownFiles(root).flatMap((f) => tsBlocks(f, fs.readFileSync(path.join(root, f), "utf8")));
}

function writeProject(blocks: CodeBlock[]): void {
  fs.rmSync(gen, { recursive: true, force: true });
  fs.mkdirSync(gen, { recursive: true });
  const paths = Object.fromEntries(Object.entries(PATHS).map(([k, v]) => [k, v.map((p) => path.join(root, p))]));
  fs.writeFileSync(
    path.join(gen, "tsconfig.json"),
    JSON.stringify({ extends: "../../../tsconfig.json", compilerOptions: { noEmit: true, rootDir: root, paths }, include: ["*.ts"] }, null, 2),
  );
  for (const b of blocks) fs.writeFileSync(path.join(gen, blockFileName(b)), `${b.code}\nexport {};\n`);
}

describe("code in the README and docs/", () => {
  const blocks = collect();
  beforeAll(() => writeProject(blocks));

  it("has code blocks to check in the README and in docs/", () => {
    expect(blocks.some((b) => b.file === "README.md")).toBe(true);
    expect(blocks.some((b) => b.file.startsWith("docs"))).toBe(true);
  });

  it("type-checks every ```ts block against the package", () => {
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const res = spawnSync(process.execPath, [tsc, "-p", path.join(gen, "tsconfig.json"), "--pretty", "false"], { encoding: "utf8" });
    // Map generated names back to Markdown locations: docs__server.md__L12.ts(3,5) → docs/server.md:14:5
    const errors = (res.stdout + res.stderr)
      .split("\n")
      .filter((l) => /error TS/.test(l))
      .map((l) =>
        l.replace(/^.*?([\w.-]+__L(\d+))\.ts\((\d+),(\d+)\)/, (_m, name: string, start: string, row: string, col: string) => {
          const file = name.replace(/__L\d+$/, "").replace(/__/g, "/");
          return `${file}:${Number(start) + Number(row) - 1}:${col}`;
        }),
      );
    expect(errors, errors.join("\n")).toEqual([]);
    expect(res.status).toBe(0);
  }, 180_000);

  it.each(Object.keys(REFERENCE_FILES))("%s is current with the source (npm run docs:reference)", (file) => {
    expect(fs.readFileSync(path.join(root, file), "utf8")).toBe(REFERENCE_FILES[file]());
  }, 60_000);

  it("links only to files that exist (the README's links to the repository's files too)", () => {
    const broken: string[] = [];
    for (const f of markdownFiles(root)) {
      const text = fs.readFileSync(path.join(root, f), "utf8");
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1];
        const inRepo = repositoryFile(target);
        if (inRepo !== undefined) {
          if (!fs.existsSync(path.join(root, inRepo))) broken.push(`${f} → ${target}`);
          continue;
        }
        if (/^[a-z]+:/.test(target)) continue;
        if (!fs.existsSync(path.resolve(root, path.dirname(f), target))) broken.push(`${f} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README links and shows images by absolute URLs of package.json's repository (npm does not resolve relative ones)", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { repository?: { url?: string }; homepage?: string; bugs?: { url?: string } };
    expect(pkg.repository?.url).toBe(`git+${REPOSITORY}.git`);
    expect(pkg.homepage).toBe(`${REPOSITORY}#readme`);
    expect(pkg.bugs?.url).toBe(`${REPOSITORY}/issues`);
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((t) => !/^https:\/\//.test(t))).toEqual([]);
  });

  const runnable = blocks.filter((b) => b.flags.includes("run"));
  it.each(runnable.map((b) => [`${b.file}:${b.line}`, b] as const))("runs %s offline", (_name, block) => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "docs-run-"));
    try {
      const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");
      const env = { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
      execFileSync(process.execPath, [tsx, "--tsconfig", path.join(gen, "tsconfig.json"), path.join(gen, blockFileName(block))], { cwd, env, stdio: "pipe", timeout: 120_000 });
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 180_000);
});
