import readline from "node:readline/promises";
import type { Command } from "commander";
import { bookkeepingMirrors } from "../../store/hidden-namespaces.js";
import { erasePrefixes } from "../../scope/erase-prefixes.js";
import { CliError } from "../../errors.js";
import { chooseEmbedder } from "../embedders.js";
import { formatNamespace, parseNamespace } from "../namespace-arg.js";
import { openStore, requireStore, storeDir } from "../open-store.js";
import { formatBytes, plural, printJson } from "../output.js";
import { Cancellation, Progress } from "../progress.js";
import { purgeEmbeddingCache } from "../purge-cache.js";
import { globals, intOption } from "./globals.js";

const diskBytes = (files: Record<string, number>) => Object.values(files).reduce((s, n) => s + n, 0);

export function registerMaintenanceCommands(program: Command): void {
  program
    .command("compact")
    .description("rewrite the snapshot and empty the log (deleted data leaves the disk)")
    .action(async (_o, cmd: Command) => {
      const g = globals(cmd);
      const store = await openStore(storeDir(g.path));
      try {
        const before = await store.stats();
        await store.compact();
        const after = await store.stats();
        if (g.json) return printJson({ before: diskBytes(before.files), after: diskBytes(after.files), items: after.items });
        process.stdout.write(`compacted: ${plural(after.items, "item")}, ${formatBytes(diskBytes(before.files))} → ${formatBytes(diskBytes(after.files))}\n`);
      } finally {
        await store.close();
      }
    });

  program
    .command("reindex")
    .requiredOption("--embeddings <name>", "the new embedder: local, openai or a module path")
    .option("--batch <n>", "texts per embedder call", "64")
    .description("re-embed every item with another embedder (nothing changes if it fails or is cancelled)")
    .action(async (o: { embeddings: string; batch: string }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      const manifest = requireStore(dir);
      const batchSize = intOption(o.batch, "--batch", 1);
      const embedder = await chooseEmbedder(o.embeddings);
      const store = await openStore(dir);
      const cancel = new Cancellation();
      const progress = new Progress("reindex", await store.count());
      try {
        await store.reindex({
          index: { dims: embedder.dims, embeddings: embedder.embeddings, fields: manifest?.index?.fields ?? ["$"] },
          batchSize,
          onProgress: (done, total) => {
            progress.setTotal(total);
            progress.update(done);
            cancel.check(`reindex (${done} of ${total} items embedded; the old index is kept)`);
          },
        });
        progress.stop();
        const stats = await store.stats();
        if (g.json) printJson({ items: stats.items, vectors: stats.vectors, embedder: embedder.identity, dims: embedder.dims });
        else process.stdout.write(`reindexed ${plural(stats.items, "item")} (${plural(stats.vectors, "vector")}) with ${embedder.identity} (${embedder.dims} dims)\n`);
      } catch (err) {
        progress.abandon();
        throw err;
      } finally {
        cancel.dispose();
        await store.close();
      }
    });

  program
    .command("forget")
    .argument("<namespace>", "dotted (users.42) or a JSON array")
    .option("-y, --yes", "do not ask for confirmation")
    .description("delete every memory under a namespace, its kept versions and its extraction and episode cursors, and purge them from disk")
    .action(async (nsArg: string, o: { yes?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const ns = parseNamespace(nsArg);
      const dir = storeDir(g.path);
      const store = await openStore(dir);
      try {
        const memories = await store.count(ns);
        const bookkeeping = bookkeepingMirrors(ns);
        let kept = 0;
        for (const mirror of bookkeeping) kept += await store.count(mirror);
        if (!o.yes) {
          if (!process.stdin.isTTY) throw new CliError(`forget would delete ${plural(memories, "memory", "memories")} and ${plural(kept, "kept version or cursor", "kept versions and cursors")} for good; pass --yes to confirm (nothing was deleted)`);
          const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
          const answer = await rl.question(`Forget ${plural(memories, "memory", "memories")} and ${plural(kept, "kept version or cursor", "kept versions and cursors")} under ${formatNamespace(ns)}? Type "yes": `);
          rl.close();
          if (answer.trim() !== "yes") throw new CliError("not confirmed; nothing was deleted");
        }
        // As erasePerson: the items, their kept versions, extraction and episode cursors; one compaction purges them.
        const [erased] = await erasePrefixes(store, [ns]);
        await purgeEmbeddingCache(dir);
        const { items: deleted, cursors: deletedCursors, history } = erased!;
        if (g.json) return printJson({ namespace: ns, memories: deleted, cursors: deletedCursors, history });
        process.stdout.write(`forgot ${formatNamespace(ns)}: ${plural(deleted, "memory", "memories")}, ${plural(history, "kept version")} and ${plural(deletedCursors, "cursor")} deleted and purged from disk\n`);
      } finally {
        await store.close();
      }
    });
}
