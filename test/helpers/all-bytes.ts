import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every byte of every file under `dir`, as one latin1 string. */
export function allBytes(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? allBytes(p) : readFileSync(p).toString("latin1");
  }
  return out;
}
