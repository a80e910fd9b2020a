/**
 * docs/quickstart.md shows examples/quickstart/main.ts, the file that
 * `npm run quickstart` runs and test/examples-e2e/quickstart.e2e.test.ts
 * spawns: the two must not drift apart.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

describe("docs/quickstart.md", () => {
  it("shows the runnable quick start, with the package's import instead of the repository's", () => {
    const doc = fs.readFileSync(path.join(root, "docs/quickstart.md"), "utf8");
    const blocks = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    const main = fs
      .readFileSync(path.join(root, "examples/quickstart/main.ts"), "utf8")
      .replace('from "../../src/index.js"', 'from "langgraph-hnsw-memory"')
      .split("\n")
      .filter((l) => !l.startsWith("// In your project the first import"))
      .join("\n");
    expect(blocks[0]).toBe(main);
    expect(blocks[0]).not.toMatch(/\.\.\/src\//);
  });
});
