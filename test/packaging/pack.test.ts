/**
 * Packaging: `npm pack` (which builds through `prepack`), then a fresh
 * consumer project outside the repository gets the tarball unpacked as
 * `node_modules/langgraph-hnsw-memory` and, offline, links to exactly the
 * packages an `npm install` would give it: the package's declared
 * dependencies, its required peers, `langchain` (for the /agent entry),
 * TypeScript and @types/node, and everything those depend on, taken from
 * this repository's node_modules. A dependency the package uses without
 * declaring it is therefore missing there, as it would be for a user.
 *
 * Then: strict TypeScript with skipLibCheck false type-checks code using both
 * entry points; the README's createAgent example runs (with langchain's fake
 * chat model, a TEST DOUBLE, and the real local embedder); and a CommonJS
 * `require()` of the package works (Node ≥ 20.19, require(esm)).
 *
 * Slow (a full build, ~1 min on a loaded 2-core machine): run with
 * `npm run test:packaging`.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSUMER_AGENT_TS, CONSUMER_PACKAGE_JSON, CONSUMER_TSCONFIG, CONSUMER_TYPES_TS } from "./consumer-files.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const REPO_MODULES = join(ROOT, "node_modules");

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/** Where `name` resolves from a package directory, as Node would find it (nested first, then up). */
function locate(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; dir.startsWith(ROOT); dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === ROOT) break;
  }
  return undefined;
}

/** The top-level packages (of the repository's node_modules) that `roots` need, transitively. */
function closure(roots: string[]): Set<string> {
  const top = new Set<string>();
  const seenDirs = new Set<string>();
  const queue: [string, string][] = roots.map((r) => [r, ROOT]);
  while (queue.length > 0) {
    const [name, from] = queue.pop()!;
    const dir = locate(name, from);
    if (!dir) continue; // an optional dependency that is not installed
    if (dir === join(REPO_MODULES, name)) top.add(name);
    if (seenDirs.has(dir)) continue;
    seenDirs.add(dir);
    const m = manifest(dir);
    const optionalPeers = m.peerDependenciesMeta ?? {};
    const next = [
      ...Object.keys(m.dependencies ?? {}),
      ...Object.keys(m.optionalDependencies ?? {}),
      ...Object.keys(m.peerDependencies ?? {}).filter((p) => !optionalPeers[p]?.optional),
    ];
    for (const dep of next) queue.push([dep, dir]);
  }
  return top;
}

describe("the packed tarball in a fresh strict consumer project", () => {
  let work: string;
  let consumer: string;
  let files: string[];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "pack-test-"));
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const packed = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
    files = packed[0]!.files.map((f) => f.path);
    consumer = join(work, "consumer");
    const modules = join(consumer, "node_modules");
    mkdirSync(modules, { recursive: true });
    await run("tar", ["-xzf", join(work, packed[0]!.filename), "-C", modules]);
    const own = join(modules, "langgraph-hnsw-memory");
    await run("mv", [join(modules, "package"), own]);

    const pkg = manifest(own);
    const required = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter((p) => !pkg.peerDependenciesMeta?.[p]?.optional),
      "langchain",
      "typescript",
      "@types/node",
    ];
    for (const name of closure(required)) {
      const link = join(modules, name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(REPO_MODULES, name), link, "dir");
    }
    writeFileSync(join(consumer, "package.json"), CONSUMER_PACKAGE_JSON);
    writeFileSync(join(consumer, "tsconfig.json"), CONSUMER_TSCONFIG);
    writeFileSync(join(consumer, "types.ts"), CONSUMER_TYPES_TS);
    writeFileSync(join(consumer, "agent.ts"), CONSUMER_AGENT_TS);
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("ships dist, the docs, README and LICENSE only: no sources, tests or source maps", () => {
    expect(files).toContain("LICENSE");
    expect(files).toContain("README.md");
    expect(files).toContain("docs/install.md");
    expect(files).toContain("docs/reference/options.md");
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/agent/index.js");
    expect(files).toContain("dist/agent/index.d.ts");
    expect(files.filter((f) => !f.startsWith("dist/") && !/^docs\/.*\.md$/.test(f) && !["LICENSE", "README.md", "package.json"].includes(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.filter((f) => f.includes("test/") || f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("the public declarations compile in a strict project with skipLibCheck: false", async () => {
    const tsc = join(consumer, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: consumer }).catch((e: { stdout: string; stderr: string }) => e);
    expect((result as { stdout: string }).stdout).toBe("");
    const energetic = readFileSync(join(consumer, "node_modules", "langgraph-hnsw-memory", "dist", "embeddings", "universal-sentence-encoder.d.ts"), "utf8");
    expect(energetic).not.toMatch(/from ["']@energetic-ai/);
  }, 300_000);

  it("the README's createAgent example runs: Friday's model call carries Monday's fact", async () => {
    // Compile the example with the consumer's TypeScript (strict, as users do), then run it with node.
    const tsc = join(consumer, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc, "--strict", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--target", "ES2022", "--skipLibCheck", "--outDir", "out", "agent.ts"], { cwd: consumer }).catch(
      (e: { stdout: string }) => {
        throw new Error(`compiling agent.ts failed:\n${e.stdout}`);
      },
    );
    const { stdout } = await run(process.execPath, [join("out", "agent.js")], { cwd: consumer, timeout: 240_000 });
    const { friday } = JSON.parse(stdout.trim().split("\n").pop()!) as { friday: string[] };
    const system = friday.find((t) => t.includes("[Long-term Memory Context]"));
    expect(system).toBeDefined();
    expect(system).toContain("You are a helpful cook.");
    expect(system).toContain("User is vegetarian.");
  }, 300_000);

  it("CommonJS: require() works on Node ≥ 20.19 (require(esm)) for both entry points", async () => {
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    const script =
      "const m = require('langgraph-hnsw-memory'); const a = require('langgraph-hnsw-memory/agent');" +
      "console.log(typeof m.HNSWStore, typeof m.memoryNamespace, typeof a.memoryMiddleware)";
    const result = await run(process.execPath, ["-e", script], { cwd: consumer }).catch((e: { stderr: string }) => e);
    if (major > 20 || (major === 20 && minor >= 19)) {
      expect((result as { stdout: string }).stdout.trim()).toBe("function function function");
    } else {
      expect((result as { stderr: string }).stderr).toMatch(/ERR_REQUIRE_ESM|require\(\) of ES Module/);
    }
  }, 120_000);
});
