import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");
const outDir = path.join(root, "node_modules/.cache/test-children");
const built = new Map<string, Promise<string>>();

/**
 * Bundles a test child script (and the src/ code it imports) to one ESM
 * file, so that starting a child costs a plain `node` start instead of a
 * TypeScript transform per process. Built once per
 * test process.
 */
export function bundleChild(entry: string): Promise<string> {
  let out = built.get(entry);
  if (!out) {
    const file = path.join(outDir, `${path.basename(entry, ".ts")}-${process.pid}.mjs`);
    out = (async () => {
      fs.mkdirSync(outDir, { recursive: true });
      await build({
        entryPoints: [path.join(root, entry)],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        keepNames: true, // embedder identities derive from class names
        external: ["hnswlib-node"], // native; everything else is bundled (a child then starts in ~0.4 s of CPU)
        banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
        outfile: file,
        logLevel: "error",
      });
      return file;
    })();
    built.set(entry, out);
  }
  return out;
}
