import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { isStoreDir, liveMessage, livePid, storeDir } from "../open-store.js";
import { plural, printJson } from "../output.js";
import { Cancellation, Progress } from "../progress.js";
import { verifyDirectory } from "../verify.js";
import { globals } from "./globals.js";
import fs from "node:fs";

export function registerVerifyCommand(program: Command): void {
  program
    .command("verify")
    .description("check the directory (checksums, vectors, log against manifest); exit code 1 on any problem")
    .action(async (_o, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      if (!fs.existsSync(dir)) throw new CliError(`no store directory at ${dir}`);
      if (!isStoreDir(dir) && !fs.existsSync(`${dir}/store.json`)) throw new CliError(`${dir} is not a langgraph-hnsw-memory store (no store.json or wal-0.log)`);
      const pid = livePid(dir);
      if (pid !== undefined) process.stderr.write(`note: ${liveMessage(dir, pid)}; checking its files as they are now\n`);
      const cancel = new Cancellation();
      const progress = new Progress("verify", 0);
      try {
        const report = await verifyDirectory(dir, {
          onProgress: (d, t) => {
            progress.setTotal(t);
            progress.update(d);
          },
          check: () => cancel.check("verify"),
        });
        progress.stop();
        if (g.json) printJson(report);
        else {
          const c = report.checked;
          for (const n of report.notes) process.stdout.write(`note: ${n}\n`);
          for (const p of report.problems) process.stdout.write(`PROBLEM: ${p}\n`);
          process.stdout.write(
            `${report.ok ? "ok" : plural(report.problems.length, "problem")}: ${plural(c.items, "snapshot item")}, ${plural(c.vectors, "vector")} checked, ${plural(c.logRecords, "log record")} (generation ${c.generation})\n`,
          );
        }
        if (!report.ok) process.exitCode = 1;
      } catch (err) {
        progress.abandon();
        throw err;
      } finally {
        cancel.dispose();
      }
    });
}
