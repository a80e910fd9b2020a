#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { CancelledError } from "../errors.js";
import { registerReadCommands } from "./commands/read.js";
import { registerTransferCommands } from "./commands/transfer.js";
import { registerMaintenanceCommands } from "./commands/maintain.js";
import { registerVerifyCommand } from "./commands/verify.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerPrivacyCommands } from "./commands/privacy.js";
import { registerProcedureCommands } from "./commands/procedures.js";

/** The `langgraph-memory` program: every command, with the global options. */
export function buildProgram(): Command {
  const program = new Command("langgraph-memory")
    .description("See and manage a langgraph-hnsw-memory store directory")
    .option("--path <dir>", "the store directory (default: $LANGGRAPH_MEMORY_PATH)")
    .option("--json", "machine-readable output")
    .option("--debug", "print stack traces on errors")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  program.configureOutput({ outputError: (str, write) => write(str.split("\n")[0] + "\n") });
  registerReadCommands(program);
  registerTransferCommands(program);
  registerMaintenanceCommands(program);
  registerVerifyCommand(program);
  registerServeCommand(program);
  registerPrivacyCommands(program);
  registerProcedureCommands(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs the CLI; errors are one line on stderr and exit code 1 (130 when cancelled). */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 1;
      return;
    }
    const debug = argv.includes("--debug");
    if (debug) process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    else process.stderr.write(`error: ${oneLine(err)}\n`);
    process.exitCode = err instanceof CancelledError ? 130 : 1;
  }
}

function oneLine(err: unknown): string {
  const e = err as Error;
  const name = e?.name && e.name !== "Error" && e.name !== "CliError" ? `${e.name}: ` : "";
  return `${name}${e?.message ?? String(err)}`.replace(/\s*\n\s*/g, " ");
}

await main(process.argv);
