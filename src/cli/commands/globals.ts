import type { Command } from "commander";
import { CliError } from "../../errors.js";

/** The options every command takes. */
export interface GlobalOptions {
  /** The store directory (`--path`, else `$LANGGRAPH_MEMORY_PATH`). */
  path?: string;
  /** Machine-readable output. */
  json?: boolean;
  /** Stack traces on errors. */
  debug?: boolean;
}

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** Parses an integer option, at least `min`. */
export function intOption(value: string, name: string, min = 0): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${name} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return n;
}
