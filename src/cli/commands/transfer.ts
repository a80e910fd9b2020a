import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { hasPrefix } from "../../store/namespace.js";
import type { MemoryEntry } from "../../migrate/entry.js";
import { EXPORT_FORMAT, EXPORT_VERSION, entryLine, type ExportHeader } from "../../migrate/jsonl.js";
import { readDirectory } from "../directory-reader.js";
import { importItems, readExportFile } from "../import-items.js";
import { importFromHnswlib } from "../import-hnswlib.js";
import { markIncomplete, promoteStaging, removeDeadStaging, stagingDir } from "../../store/hnsw/incomplete.js";
import { migrateToPostgres } from "../migrate-postgres.js";
import { parseNamespace } from "../namespace-arg.js";
import { isStoreDir, liveMessage, livePid, requireStore, storeDir, storeDirState } from "../open-store.js";
import { plural, printJson } from "../output.js";
import { Cancellation, Progress } from "../progress.js";
import { globals, intOption } from "./globals.js";

/** Writes to a stream, waiting when it is full. */
function writer(out: NodeJS.WritableStream): (s: string) => Promise<void> {
  return (s) => (out.write(s) ? Promise.resolve() : new Promise((r) => out.once("drain", () => r())));
}

/**
 * The live items of a directory under `prefix`, read without changing it,
 * with the header of the library's export format (what `importStore` reads).
 */
function exportable(dir: string, prefix: string[], vectors: boolean): { header: ExportHeader; items: MemoryEntry[] } {
  const view = readDirectory(dir, { vectors });
  const now = Date.now();
  const items = view.items.filter((i) => hasPrefix(i.namespace, prefix) && (!i.expiresAt || i.expiresAt > now));
  const idx = view.manifest?.index;
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    embedder: vectors && idx ? { identity: idx.embedder, dims: idx.dims, fields: idx.fields ?? ["$"] } : null,
    fields: idx?.fields ?? null,
    exportedAt: new Date(now).toISOString(),
  };
  if (!vectors) for (const i of items) delete i.vectors;
  return { header, items };
}

export function registerTransferCommands(program: Command): void {
  program
    .command("export")
    .argument("[prefix]", "namespace prefix, dotted (users.42) or a JSON array; default: everything")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .option("--no-vectors", "leave the stored vectors out (smaller; import re-embeds)")
    .description("write items as JSON lines (a header line, then one item per line), in the format importStore reads")
    .action(async (prefixArg: string | undefined, o: { output?: string; vectors: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      requireStore(dir);
      const prefix = parseNamespace(prefixArg, "namespace prefix", { allowEmpty: true });
      const pid = livePid(dir);
      if (pid !== undefined) process.stderr.write(`note: ${liveMessage(dir, pid)}; exporting its last snapshot plus the log\n`);
      const { header, items } = exportable(dir, prefix, o.vectors);
      const cancel = new Cancellation();
      const progress = new Progress("export", items.length);
      const out = o.output ? fs.createWriteStream(o.output) : process.stdout;
      const write = writer(out);
      try {
        await write(JSON.stringify(header) + "\n");
        for (let i = 0; i < items.length; i++) {
          if (i % 200 === 0) {
            cancel.check(`export (${i} of ${items.length} items written)`);
            progress.update(i);
            await new Promise((r) => setImmediate(r));
          }
          await write(entryLine(items[i]) + "\n");
        }
        progress.update(items.length);
        progress.stop();
      } catch (err) {
        progress.abandon();
        if (o.output) {
          (out as fs.WriteStream).destroy();
          fs.rmSync(o.output, { force: true });
        }
        throw err;
      } finally {
        cancel.dispose();
      }
      if (o.output) await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())));
      process.stderr.write(`exported ${plural(items.length, "item")}${o.output ? ` to ${o.output}` : ""}\n`);
    });

  program
    .command("import")
    .argument("[file]", "a file written by export")
    .option("--embeddings <name>", "embedder for items without reusable vectors: local, openai or a module path")
    .option("--from-hnswlib <dir>", "import a directory saved by LangChain's HNSWLib vector store instead")
    .option("--namespace <ns>", "with --from-hnswlib: the namespace for the documents (dotted)")
    .option("--batch <n>", "items per progress step", "100")
    .description("write items from an export file (or an HNSWLib directory) into the store")
    .action(async (file: string | undefined, o: { embeddings?: string; fromHnswlib?: string; namespace?: string; batch: string }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      const batchSize = intOption(o.batch, "--batch", 1);
      storeDirState(dir); // a directory holding other files is refused before anything is read
      const cancel = new Cancellation();
      const progress = new Progress("import", 0);
      try {
        let result: { imported: number; skippedExpired?: number; reusedVectors: boolean };
        if (o.fromHnswlib !== undefined) {
          if (file !== undefined) throw new CliError("give either a file or --from-hnswlib DIR, not both");
          if (o.namespace === undefined) throw new CliError("--from-hnswlib needs --namespace NS (where the documents go)");
          result = await importFromHnswlib({ dir, source: path.resolve(o.fromHnswlib), namespace: parseNamespace(o.namespace), embeddings: o.embeddings, progress, cancel, batchSize });
        } else {
          if (file === undefined) throw new CliError("import needs a file (written by export) or --from-hnswlib DIR");
          if (o.namespace !== undefined) throw new CliError("--namespace is only for --from-hnswlib");
          const { header, items } = readExportFile(file);
          result = await importItems({ dir, header, items, embeddings: o.embeddings, progress, cancel, batchSize });
        }
        progress.stop();
        if (g.json) printJson(result);
        else process.stdout.write(`imported ${plural(result.imported, "item")} into ${dir}${result.reusedVectors ? " (stored vectors reused)" : ""}${result.skippedExpired ? `; skipped ${result.skippedExpired} expired` : ""}\n`);
      } catch (err) {
        progress.abandon();
        throw err;
      } finally {
        cancel.dispose();
      }
    });

  program
    .command("migrate")
    .requiredOption("--to <target>", "a new directory (or postgres://…)")
    .option("--embeddings <name>", "re-embed with this embedder instead of copying the vectors")
    .description("copy every item (and its vectors) into a new store")
    .action(async (o: { to: string; embeddings?: string }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      requireStore(dir);
      if (/^postgres(ql)?:\/\//.test(o.to)) {
        const report = await migrateToPostgres(dir, o.to, o.embeddings);
        if (g.json) printJson({ ...report, to: o.to.replace(/\/\/[^@/]*@/, "//…@") });
        else process.stdout.write(`migrated ${plural(report.items, "item")} to PostgreSQL${report.vectorsCopied ? " (vectors copied)" : ""}, verified: ${report.verified}\n`);
        return;
      }
      const target = path.resolve(o.to);
      if (target === dir) throw new CliError("--to is the source directory itself");
      // A run killed before (SIGKILL, power cut) left only a hidden staging directory: removed, this run starts over.
      removeDeadStaging(target);
      if (fs.existsSync(target) && (isStoreDir(target) || fs.readdirSync(target).length > 0)) throw new CliError(`--to ${target} is not empty; migrate writes a new store`);
      const pid = livePid(dir);
      if (pid !== undefined) process.stderr.write(`note: ${liveMessage(dir, pid)}; migrating its last snapshot plus the log\n`);
      const { header, items } = exportable(dir, [], true);
      const cancel = new Cancellation();
      const progress = new Progress("migrate", items.length);
      // Built in a hidden sibling marked incomplete, renamed into place once whole: a killed run
      // leaves no store at --to (and open and verify refuse the staging directory).
      const staging = stagingDir(target);
      fs.mkdirSync(staging, { mode: 0o700 });
      markIncomplete(staging, dir);
      try {
        const result = await importItems({ dir: staging, header, items, embeddings: o.embeddings, progress, cancel });
        promoteStaging(staging, target);
        progress.stop();
        if (g.json) printJson({ ...result, to: target });
        else process.stdout.write(`migrated ${plural(result.imported, "item")} to ${target}${result.reusedVectors ? " (vectors copied)" : ""}\n`);
      } catch (err) {
        progress.stop();
        // A partial copy is no use: remove it.
        fs.rmSync(staging, { recursive: true, force: true });
        throw err;
      } finally {
        cancel.dispose();
      }
    });
}
