import fs from "node:fs";
import path from "node:path";
import { CorruptStoreError, IncompatibleStoreError } from "../../errors.js";
import type { EncryptionManifest, FileCipher } from "./cipher.js";
import { fsyncDir, writeAll, writeFileAtomic } from "./files.js";

export const FORMAT = "langgraph-hnsw-memory";
export const FORMAT_VERSION = 1;

/** What the vectors were built with; checked on every open. */
export interface IndexManifest {
  space: "cosine";
  dims: number;
  M: number;
  efConstruction: number;
  efSearch: number;
  /** Identity of the embedder that built the vectors. */
  embedder: string;
  fields: string[];
}

/**
 * `store.json`: the commit point of a snapshot. Renaming a new manifest into
 * place switches atomically to the new generation's files.
 */
export interface Manifest {
  format: typeof FORMAT;
  formatVersion: number;
  generation: number;
  /** Last log sequence number folded into this snapshot. */
  seq: number;
  index: IndexManifest | null;
  itemCount: number;
  writtenAt: string;
  /** Present when the directory is encrypted (never the key). */
  encryption?: EncryptionManifest;
}

/** One item as written in the snapshot's items file (one JSON line each). */
export interface SnapshotItem {
  ns: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  exp?: number;
  ttl?: number;
  index?: false | string[];
  /** `[label, field]` pairs: the label ↔ item map. */
  vec?: [number, string][];
}

export const manifestFile = (dir: string) => path.join(dir, "store.json");
export const itemsFile = (dir: string, gen: number) => path.join(dir, `items-${gen}.jsonl`);
export const indexFile = (dir: string, gen: number) => path.join(dir, `vectors-${gen}.hnsw`);
export const logFile = (dir: string, gen: number) => path.join(dir, `wal-${gen}.log`);

export function readManifest(dir: string): Manifest | null {
  const file = manifestFile(dir);
  if (!fs.existsSync(file)) return null;
  let m: Manifest;
  try {
    m = JSON.parse(fs.readFileSync(file, "utf8")) as Manifest;
  } catch (err) {
    throw new CorruptStoreError(`manifest ${file} is corrupt or truncated: ${(err as Error).message}`, file);
  }
  if (m.format !== FORMAT || typeof m.formatVersion !== "number" || typeof m.generation !== "number") {
    throw new CorruptStoreError(`manifest ${file} is not a ${FORMAT} manifest`, file);
  }
  if (m.formatVersion > FORMAT_VERSION) {
    throw new IncompatibleStoreError(
      `store directory ${dir} was written by format version ${m.formatVersion}; this version of langgraph-hnsw-memory reads up to ${FORMAT_VERSION}. Upgrade the package.`,
    );
  }
  return m;
}

/** Reads a snapshot's items file; it must end with its footer line. */
export function readItems(file: string, expected: number, cipher?: FileCipher): SnapshotItem[] {
  if (!fs.existsSync(file)) {
    if (expected === 0) return [];
    throw new CorruptStoreError(`items file ${file} is missing`, file);
  }
  const text = fs.readFileSync(file, "utf8");
  let lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  if (cipher) {
    lines = lines.map((line, i) => {
      const plain = cipher.openLine(line, "items");
      if (plain === undefined) throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (fails authentication)`, file);
      return plain;
    });
  }
  const footer = lines.pop();
  let count = -1;
  try {
    count = footer ? (JSON.parse(footer) as { end?: number }).end ?? -1 : -1;
  } catch {
    // handled below
  }
  if (count !== lines.length || count !== expected) {
    throw new CorruptStoreError(`items file ${file} is truncated or corrupt (expected ${expected} items)`, file);
  }
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as SnapshotItem;
    } catch {
      throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1}`, file);
    }
  });
}

/**
 * Writes a new generation: items file and (via `writeIndex`) index file,
 * each fsynced, then the manifest renamed into place. Files of older
 * generations are removed afterwards.
 */
export function writeSnapshot(
  dir: string,
  manifest: Manifest,
  items: Iterable<SnapshotItem>,
  writeIndex?: (file: string) => void,
  cipher?: FileCipher,
): void {
  const seal = (line: string) => (cipher ? cipher.sealLine(line, "items") : line);
  const gen = manifest.generation;
  const itemsPath = itemsFile(dir, gen);
  const fd = fs.openSync(itemsPath, "w");
  try {
    let chunk: string[] = [];
    let size = 0;
    let count = 0;
    for (const item of items) {
      const line = seal(JSON.stringify(item));
      chunk.push(line);
      size += line.length;
      count++;
      if (size > 1 << 20) {
        writeAll(fd, Buffer.from(chunk.join("\n") + "\n"));
        chunk = [];
        size = 0;
      }
    }
    chunk.push(seal(JSON.stringify({ end: count })));
    writeAll(fd, Buffer.from(chunk.join("\n") + "\n"));
    fs.fsyncSync(fd);
    if (count !== manifest.itemCount) throw new Error(`snapshot wrote ${count} items, expected ${manifest.itemCount}`);
  } finally {
    fs.closeSync(fd);
  }
  if (writeIndex) writeIndex(indexFile(dir, gen));
  writeFileAtomic(manifestFile(dir), JSON.stringify(manifest, null, 2));
  removeStrays(dir, gen);
}

/** Removes files that do not belong to generation `gen` (and temp files). */
export function removeStrays(dir: string, gen: number): void {
  const keep = new Set([path.basename(itemsFile(dir, gen)), path.basename(indexFile(dir, gen)), path.basename(logFile(dir, gen))]);
  let removed = false;
  for (const name of fs.readdirSync(dir)) {
    const ours = /^(items-\d+\.jsonl|vectors-\d+\.hnsw|wal-\d+\.log)(\.tmp)?$/.test(name) || name === "store.json.tmp";
    if (ours && !keep.has(name)) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed = true;
    }
  }
  if (removed) fsyncDir(dir);
}
