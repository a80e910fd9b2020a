import readline from "node:readline/promises";
import type { Command } from "commander";
import { bookkeepingMirrors } from "../../store/hidden-namespaces.js";
import { erasePerson } from "../../privacy/erase-person.js";
import { personNamespaces } from "../../scope/forget-person.js";
import { personOf } from "../../scope/layout-match.js";
import { readLayoutFile } from "../layout-file.js";
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
    .argument("[namespace]", "dotted (users.42) or a JSON array; a person's namespace (of any kind of the layout) forgets the whole person")
    .option("--user <id>", "forget this person: every kind of memory the layout names")
    .option("--layout <file>", "a JSON memory layout (as `serve --layout`); default: facts users.<id>, episodes episodes.<id>, learned instructions")
    .option("--namespace-only", "erase only the namespace given, even when it is a person's")
    .option("-y, --yes", "do not ask for confirmation")
    .description("forget a person (every kind of memory: facts, episodes, learned instructions and feedback of every agent) or one namespace, with kept versions and cursors, and purge them from disk")
    .action(async (nsArg: string | undefined, o: { yes?: boolean; user?: string; layout?: string; namespaceOnly?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      if (nsArg === undefined && o.user === undefined) throw new CliError("forget needs a namespace (users.42) or --user <id>");
      if (nsArg !== undefined && o.user !== undefined) throw new CliError("forget takes a namespace or --user, not both");
      const layout = readLayoutFile(o.layout);
      const ns = nsArg === undefined ? undefined : parseNamespace(nsArg);
      const person = o.user ?? (ns && !o.namespaceOnly ? personOf(layout, ns) : undefined);
      const dir = storeDir(g.path);
      const store = await openStore(dir);
      try {
        // Resolve and count everything before deleting anything.
        const targets = person === undefined ? [ns!] : (await personNamespaces(store, { layout, values: { [layout.personKey]: person }, extra: ns ? [ns] : [] })).targets.map((t) => t.namespace);
        let memories = 0;
        let kept = 0;
        for (const t of targets) {
          memories += await store.count(t);
          for (const mirror of bookkeepingMirrors(t)) kept += await store.count(mirror);
        }
        const what = person === undefined ? formatNamespace(ns!) : `person ${person} (${layout.kinds.map((k) => k.name).join(", ")})`;
        if (!o.yes) {
          if (!process.stdin.isTTY) throw new CliError(`forget would delete ${plural(memories, "item")} and ${plural(kept, "kept version or cursor", "kept versions and cursors")} of ${what} for good; pass --yes to confirm (nothing was deleted)`);
          const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
          const answer = await rl.question(`Forget ${plural(memories, "item")} and ${plural(kept, "kept version or cursor", "kept versions and cursors")} of ${what}? Type "yes": `);
          rl.close();
          if (answer.trim() !== "yes") throw new CliError("not confirmed; nothing was deleted");
        }
        // As erasePerson: every kind's items, kept versions, cursors and feedback; one compaction purges them.
        const report = person === undefined
          ? await erasePerson(store, { namespaces: [ns!] })
          : await erasePerson(store, { userId: person, layout, namespaces: ns ? [ns] : [] });
        await purgeEmbeddingCache(dir);
        let deleted = 0;
        let history = 0;
        let cursors = 0;
        for (const r of report.namespaces) {
          deleted += r.items;
          history += r.history;
          cursors += r.cursors;
        }
        if (g.json) {
          return printJson({ namespace: ns ?? null, ...(person !== undefined ? { person, kinds: report.kinds, kept: report.kept } : {}), memories: deleted, cursors, history });
        }
        const perKind = person === undefined ? "" : ` (${Object.entries(report.kinds ?? {}).map(([k, r]) => `${k} ${r.items + r.bookkeeping}`).join(", ")})`;
        process.stdout.write(`forgot ${what}: ${plural(deleted, "item")}${perKind}, ${plural(history, "kept version")} and ${plural(cursors, "cursor")} deleted and purged from disk\n`);
        if (report.kept?.length) process.stdout.write(`kept: ${report.kept.join("; ")}\n`);
      } finally {
        await store.close();
      }
    });
}
