import { readFileSync } from "node:fs";
import { CliError } from "../errors.js";
import { defaultMemoryLayout, defineMemoryLayout, type MemoryLayout } from "../scope/memory-layout.js";

/**
 * Reads a memory layout from a JSON file (`--layout FILE` of `serve` and
 * `forget`): either a whole layout, `{ "kinds": [...], "personKey"?: ... }`,
 * or today's layout with changes, `{ "facts"?: [...], "episodes"?: [...],
 * "extra"?: [kinds] }`. Without a file, today's layout.
 */
export function readLayoutFile(file: string | undefined): MemoryLayout {
  if (file === undefined) return defaultMemoryLayout();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new CliError(`--layout ${file}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `not valid JSON (${(err as Error).message})`}`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new CliError(`--layout ${file}: expected a JSON object such as { "extra": [{ "name": "notes", "namespace": ["notes", "{user_id}"] }] }`);
  try {
    const o = raw as Record<string, unknown>;
    return "kinds" in o ? defineMemoryLayout(o as never) : defaultMemoryLayout(o as never);
  } catch (err) {
    throw new CliError(`--layout ${file}: ${(err as Error).message}`);
  }
}
