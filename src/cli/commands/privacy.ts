import path from "node:path";
import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { AuditLog } from "../../privacy/audit-log.js";
import { listHistory, restoreVersion } from "../../privacy/history.js";
import { formatNamespace, parseNamespace } from "../namespace-arg.js";
import { embedderForDirectory, openStore, requireStore, storeDir } from "../open-store.js";
import { clip, printFields, printJson, printTable, valueText } from "../output.js";
import { globals, intOption } from "./globals.js";

/** The audit log directory: `--audit-dir`, else `<store>/audit`. */
function auditDir(store: string, given: string | undefined): string {
  return path.resolve(given ?? path.join(store, "audit"));
}

/** `audit`, `history`, `restore`: the privacy layer's trail and kept versions. */
export function registerPrivacyCommands(program: Command): void {
  program
    .command("audit")
    .option("--audit-dir <dir>", "the AuditLog's directory (default: <path>/audit)")
    .option("--limit <n>", "newest entries to show", "50")
    .option("--verify", "check the whole hash chain; exit 1 when it is broken")
    .description("the audit trail of memory writes and deletes (hashed keys, never text)")
    .action(async (o: { auditDir?: string; limit: string; verify?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const dir = auditDir(storeDir(g.path), o.auditDir);
      const log = new AuditLog({ path: dir });
      try {
        if (o.verify) {
          const report = await log.verify();
          if (g.json) printJson(report);
          else if (report.ok) process.stdout.write(`audit chain intact: ${report.entries} entries\n`);
          if (!report.ok) throw new CliError(`audit chain broken at line ${report.brokenAt} of ${path.join(dir, "audit.log")}: ${report.problem}`);
          return;
        }
        const entries = (await log.entries()).slice(-intOption(o.limit, "--limit", 1));
        if (g.json) return printJson(entries);
        printTable(
          ["seq", "at", "op", "root", "source", "namespace#", "key#", "identity#"],
          entries.map((e) => [e.seq, e.at, e.op, e.root, e.source, e.ns?.slice(0, 8) ?? "-", e.key?.slice(0, 8) ?? "-", e.identity?.slice(0, 8) ?? "-"]),
        );
      } finally {
        await log.close();
      }
    });

  program
    .command("history")
    .argument("<namespace>", "dotted (users.42) or a JSON array")
    .argument("<key>")
    .description("previous versions of a memory (kept by the extractor or a ProtectedStore with history)")
    .action(async (nsArg: string, key: string, _o, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      requireStore(dir);
      const ns = parseNamespace(nsArg);
      const store = await openStore(dir);
      try {
        // Numbered as people count (1 = the oldest kept); `version` is the id `restore` takes.
        const versions = (await listHistory(store, ns, key)).map((v, i, all) => ({ number: all.length - i, ...v }));
        if (g.json) return printJson(versions);
        if (versions.length === 0) return void process.stdout.write(`no kept versions of ${key} in ${formatNamespace(ns)}\n`);
        printTable(
          ["#", "version", "changed", "op", "source", "text"],
          versions.map((v) => [v.number, v.version, v.changedAt, v.op, v.source, clip(valueText(v.value))]),
        );
      } finally {
        await store.close();
      }
    });

  program
    .command("restore")
    .argument("<namespace>", "dotted (users.42) or a JSON array")
    .argument("<key>")
    .argument("<version>", "a version from `history`")
    .option("--embeddings <name>", "embedder for the restored text (default: the directory's own when known)")
    .description("put a kept version of a memory back as its current value")
    .action(async (nsArg: string, key: string, versionArg: string, o: { embeddings?: string }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      requireStore(dir);
      const ns = parseNamespace(nsArg);
      const version = Number(versionArg);
      if (!Number.isSafeInteger(version) || version <= 0) throw new CliError(`version must be a positive integer from \`history\`, got ${versionArg}`);
      const { embedder, note } = await embedderForDirectory(dir, o.embeddings);
      if (note) process.stderr.write(`note: ${note}\n`);
      const store = await openStore(dir, { embedder });
      try {
        const restored = await restoreVersion(store, ns, key, version);
        if (g.json) return printJson(restored);
        printFields([
          ["restored", `${formatNamespace(ns)} ${key}`],
          ["version", restored.version],
          ["text", clip(valueText(restored.value), 100)],
        ]);
      } finally {
        await store.close();
      }
    });
}
