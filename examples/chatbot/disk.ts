import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** A file under a directory, with its size in bytes. */
export interface FileEntry {
  /** Path relative to the directory, with `/` separators. */
  file: string;
  bytes: number;
}

/** Every file under `dir`, recursively, sorted by path. */
export function listFiles(dir: string): FileEntry[] {
  const out: FileEntry[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const st = statSync(path.join(dir, r));
      if (st.isDirectory()) walk(r);
      else out.push({ file: r, bytes: st.size });
    }
  };
  walk("");
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * Which of `needles` occur in the raw bytes of which files under `dir`
 * (as UTF-8, case-sensitive). Returns `file → needles found`; files with no
 * match are left out.
 */
export function findOnDisk(dir: string, needles: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const { file } of listFiles(dir)) {
    const bytes = readFileSync(path.join(dir, file));
    const hits = needles.filter((n) => bytes.includes(Buffer.from(n, "utf8")));
    if (hits.length > 0) found.set(file, hits);
  }
  return found;
}
