import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");
const outDir = path.join(root, "node_modules/.cache/test-children");
const built = new Map<string, Promise<string>>();

/**
 * Bundles a test child script (and the src/ code it imports) to one ESM
 * file, so that starting a child costs a plain `node` start instead of a
 * TypeScript transform per process; packages stay external. Built once per
 * test process.
 */
export function bundleChild(entry: string): Promise<string> {
  let out = built.get(entry);
  if (!out) {
    const file = path.join(outDir, `${path.basename(entry, ".ts")}-${process.pid}.mjs`);
    out = (async () => {
      fs.mkdirSync(outDir, { recursive: true });
      await build({ entryPoints: [path.join(root, entry)], bundle: true, platform: "node", format: "esm", target: "node20", packages: "external", outfile: file, logLevel: "error" });
      return file;
    })();
    built.set(entry, out);
  }
  return out;
}
