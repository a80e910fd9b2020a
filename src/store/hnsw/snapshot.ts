import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { CorruptStoreError, IncompatibleStoreError } from "../../errors.js";
import { crcHex, fileChecksum, type FileChecksum } from "./checksum.js";
import type { EncryptionManifest, FileCipher } from "./cipher.js";
import { fsyncDir, writeAll, writeFileAtomic } from "./files.js";
import { itemsFooter, SnapshotItemEncoder, type SnapshotItem } from "./snapshot-items.js";
import { WriteAheadLog } from "./write-ahead-log.js";

export { readItems, type SnapshotItem } from "./snapshot-items.js";

export const FORMAT = "langgraph-hnsw-memory";
/**
 * 2: the manifest carries its own checksum and the size and crc32 of each
 * snapshot file, and each log starts with a header naming its generation and
 * the sequence number it follows.
 * 3: the items file holds, per item, a short JSON header and the value's JSON
 * after a tab (read lazily; the namespace written once per run), see
 * {@link SnapshotItemEncoder}.
 * Version 1 and 2 directories are still read; their first compaction writes
 * version 3.
 */
export const FORMAT_VERSION = 3;

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
  /** Size and crc32 of each snapshot file (version 2). */
  files?: { items?: FileChecksum; vectors?: FileChecksum };
  /** crc32 of the manifest's JSON without this field (version 2). */
  checksum?: string;
  /** Present when the directory is encrypted (never the key). */
  encryption?: EncryptionManifest;
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
  if (m === null || typeof m !== "object") throw new CorruptStoreError(`manifest ${file} is not a ${FORMAT} manifest`, file);
  const { checksum, ...rest } = m;
  // Every version after 1 writes a checksum: a manifest without one (or with
  // a wrong one) is damaged, whatever its other fields claim.
  if (checksum !== undefined || m.formatVersion !== 1) {
    if (typeof checksum !== "string" || checksum !== crcHex(JSON.stringify(rest))) {
      throw new CorruptStoreError(`manifest ${file} is corrupt (checksum mismatch)`, file);
    }
  }
  if (m.format !== FORMAT || typeof m.formatVersion !== "number" || !Number.isInteger(m.generation) || m.generation < 0 || !Number.isInteger(m.seq)) {
    throw new CorruptStoreError(`manifest ${file} is not a ${FORMAT} manifest`, file);
  }
  if (m.formatVersion > FORMAT_VERSION) {
    throw new IncompatibleStoreError(
      `store directory ${dir} was written by format version ${m.formatVersion}; this version of langgraph-hnsw-memory reads up to ${FORMAT_VERSION}. Upgrade the package.`,
    );
  }
  return m;
}

/** Writes `manifest` (with its checksum) to `store.json` atomically: the commit point of a generation. */
export function writeManifest(dir: string, manifest: Manifest): void {
  const { checksum: _, ...rest } = manifest;
  const json = JSON.stringify(rest);
  writeFileAtomic(manifestFile(dir), JSON.stringify({ ...rest, checksum: crcHex(json) }, null, 2));
}

/** Data files (of any generation) present in `dir`. */
export function dataFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => /^(items-\d+\.jsonl|vectors-\d+\.hnsw|wal-\d+\.log)$/.test(n));
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
  const encoder = new SnapshotItemEncoder();
  const gen = manifest.generation;
  const itemsPath = itemsFile(dir, gen);
  const fd = fs.openSync(itemsPath, "w");
  let crc = 0;
  let bytes = 0;
  try {
    let chunk: string[] = [];
    let size = 0;
    let count = 0;
    const flush = () => {
      const buf = Buffer.from(chunk.join("\n") + "\n");
      writeAll(fd, buf);
      crc = zlib.crc32(buf, crc);
      bytes += buf.length;
      chunk = [];
      size = 0;
    };
    for (const item of items) {
      const line = seal(encoder.line(item));
      chunk.push(line);
      size += line.length;
      count++;
      if (size > 1 << 20) flush();
    }
    chunk.push(seal(itemsFooter(count)));
    flush();
    fs.fsyncSync(fd);
    if (count !== manifest.itemCount) throw new Error(`snapshot wrote ${count} items, expected ${manifest.itemCount}`);
  } finally {
    fs.closeSync(fd);
  }
  const files: Manifest["files"] = { items: { bytes, crc: crc.toString(16).padStart(8, "0") } };
  if (writeIndex) {
    const file = indexFile(dir, gen);
    writeIndex(file);
    files.vectors = fileChecksum(file);
  }
  // The new log exists before the manifest that names it: a committed
  // generation always has its log, so a missing one is damage.
  WriteAheadLog.create(logFile(dir, gen), gen, manifest.seq);
  writeManifest(dir, { ...manifest, formatVersion: FORMAT_VERSION, files });
  removeStrays(dir, gen);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what provably belongs to an older generation than `gen` (the
 * committed one), and this package's temporary files. Files of `gen` and of
 * newer generations (a compaction that crashed before its commit; the next
 * one overwrites them) are never touched.
 */
export function removeStrays(dir: string, gen: number): void {
  let removed = false;
  for (const name of fs.readdirSync(dir)) {
    const m = /^(?:items-(\d+)\.jsonl|vectors-(\d+)\.hnsw|wal-(\d+)\.log)$/.exec(name);
    const older = m !== null && Number(m[1] ?? m[2] ?? m[3]) < gen;
    const cacheTemp = /^embedding-cache\.jsonl\.(\d+)\.tmp$/.exec(name); // a crash mid-rewrite of the cache
    const temp = /^(items-\d+\.jsonl|vectors-\d+\.hnsw|wal-\d+\.log|store\.json)\.tmp$/.test(name) || (cacheTemp !== null && !isAlive(Number(cacheTemp[1])));
    if (older || temp) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed = true;
    }
  }
  if (removed) fsyncDir(dir);
}
