import type { Command } from "commander";
import { readManifest } from "../../store/hnsw/snapshot.js";
import { openOrCreateStore, storeDir, storeDirState } from "../open-store.js";
import { printJson } from "../output.js";
import { globals } from "./globals.js";

/**
 * `init`: creates an empty store in a new or empty directory, recording its
 * embedder (the bundled local model unless `--embeddings` names another).
 * An existing store is left as it is; a directory holding other files is
 * refused (NotAStoreDirectoryError). `serve` does the same on first use.
 */
export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .option("--embeddings <name>", "the embedder the store records: local (offline, the default), openai or a module path")
    .description("create an empty store in a new or empty directory (an existing store is left unchanged)")
    .action(async (o: { embeddings?: string }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      // An existing store is only described: opening it would need its lock, which a running app may hold.
      const created = storeDirState(dir) !== "existing";
      if (created) await (await openOrCreateStore(dir, o.embeddings)).store.close();
      const index = readManifest(dir)?.index;
      const out = { path: dir, created, embedder: index?.embedder ?? null, dims: index?.dims ?? null };
      if (g.json) return printJson(out);
      const embedder = out.embedder ? `embedder ${out.embedder}, ${out.dims} dims` : "no embedder: keyword search only";
      process.stdout.write(created ? `created an empty store in ${dir} (${embedder})\n` : `${dir} is already a store (${embedder}); left unchanged\n`);
    });
}
