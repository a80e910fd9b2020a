import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { CorruptStoreError, IncompatibleStoreError } from "../../errors.js";
import { crcHex, type FileChecksum } from "./checksum.js";
import type { EncryptionManifest, FileCipher } from "./cipher.js";
import { fsyncDir, fsyncDirAsync, writeAllAsync, writeFileAtomic, writeFileAtomicAsync } from "./files.js";
import { TimeSlicer } from "../../time-slice.js";
import { itemsFooter, SnapshotItemEncoder, type SnapshotItem } from "./snapshot-items.js";
import { WriteAheadLog } from "./write-ahead-log.js";
import { isAlive } from "../../process-alive.js";

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
  writeFileAtomic(manifestFile(dir), manifestJson(manifest));
}

/** The text of `store.json` for `manifest`, with its checksum. */
function manifestJson(manifest: Manifest): string {
  const { checksum: _, ...rest } = manifest;
  const json = JSON.stringify(rest);
  return JSON.stringify({ ...rest, checksum: crcHex(json) }, null, 2);
}

/** Data files (of any generation) present in `dir`. */
export function dataFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => /^(items-\d+\.jsonl|vectors-\d+\.hnsw|wal-\d+\.log)$/.test(n));
}

/** Longest stretch compaction serializes items before it yields to the event loop. */
const SNAPSHOT_SLICE_MS = 8;

/**
 * Writes a new generation without blocking the event loop for long: the
 * items are serialized in slices of a few milliseconds and written through
 * the threadpool, `writeIndex` writes the index file (hnswlib's async
 * write) and returns its size and crc32. Each file is fsynced, then the new
 * generation's log is created and the manifest renamed into place (the
 * commit point); files of older generations are removed afterwards.
 * Returns the files' sizes and checksums, as the manifest records them.
 *
 * The caller must keep `items` from changing until this resolves (the store
 * holds off writers; readers may run).
 */
export async function writeSnapshot(
  dir: string,
  manifest: Manifest,
  items: Iterable<SnapshotItem>,
  writeIndex?: (file: string) => Promise<FileChecksum>,
  cipher?: FileCipher,
): Promise<Manifest["files"]> {
  const seal = (line: string) => (cipher ? cipher.sealLine(line, "items") : line);
  const encoder = new SnapshotItemEncoder();
  const gen = manifest.generation;
  const itemsPath = itemsFile(dir, gen);
  const fh = await fs.promises.open(itemsPath, "w");
  let crc = 0;
  let bytes = 0;
  try {
    let chunk: string[] = [];
    let size = 0;
    let count = 0;
    const flush = async () => {
      const buf = Buffer.from(chunk.join("\n") + "\n");
      chunk = [];
      size = 0;
      crc = zlib.crc32(buf, crc);
      bytes += buf.length;
      await writeAllAsync(fh, buf);
    };
    const slicer = new TimeSlicer(SNAPSHOT_SLICE_MS);
    for (const item of items) {
      const line = seal(encoder.line(item));
      chunk.push(line);
      size += line.length;
      count++;
      if (size > 1 << 20) await flush();
      else if (slicer.due) await slicer.pause();
    }
    chunk.push(seal(itemsFooter(count)));
    await flush();
    await fh.sync();
    if (count !== manifest.itemCount) throw new Error(`snapshot wrote ${count} items, expected ${manifest.itemCount}`);
  } finally {
    await fh.close();
  }
  const files: Manifest["files"] = { items: { bytes, crc: crc.toString(16).padStart(8, "0") } };
  if (writeIndex) files.vectors = await writeIndex(indexFile(dir, gen));
  // The new log exists before the manifest that names it: a committed
  // generation always has its log, so a missing one is damage.
  await WriteAheadLog.createAsync(logFile(dir, gen), gen, manifest.seq);
  await writeFileAtomicAsync(manifestFile(dir), manifestJson({ ...manifest, formatVersion: FORMAT_VERSION, files }));
  await removeStraysAsync(dir, gen);
  return files;
}

/**
 * Removes what provably belongs to an older generation than `gen` (the
 * committed one), and this package's temporary files. Files of `gen` and of
 * newer generations (a compaction that crashed before its commit; the next
 * one overwrites them) are never touched.
 */
export function removeStrays(dir: string, gen: number): void {
  const strays = strayFiles(dir, gen);
  for (const name of strays) fs.rmSync(path.join(dir, name), { force: true });
  if (strays.length) fsyncDir(dir);
}

/** {@link removeStrays} through the threadpool (unlinking a big index file can take a while). */
async function removeStraysAsync(dir: string, gen: number): Promise<void> {
  const strays = strayFiles(dir, gen);
  for (const name of strays) await fs.promises.rm(path.join(dir, name), { force: true });
  if (strays.length) await fsyncDirAsync(dir);
}

/** The files {@link removeStrays} removes. */
function strayFiles(dir: string, gen: number): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const m = /^(?:items-(\d+)\.jsonl|vectors-(\d+)\.hnsw|wal-(\d+)\.log)$/.exec(name);
    const older = m !== null && Number(m[1] ?? m[2] ?? m[3]) < gen;
    const cacheTemp = /^embedding-cache\.jsonl\.(\d+)\.tmp$/.exec(name); // a crash mid-rewrite of the cache
    const temp = /^(items-\d+\.jsonl|vectors-\d+\.hnsw|wal-\d+\.log|store\.json)\.tmp$/.test(name) || (cacheTemp !== null && !isAlive(Number(cacheTemp[1])));
    if (older || temp) out.push(name);
  }
  return out;
}

/** The index fields a store directory recorded, if it is one (a damaged manifest is reported by the open itself). */
export function recordedFields(dir: string): string[] | undefined {
  try {
    const fields = readManifest(dir)?.index?.fields;
    return Array.isArray(fields) ? fields : undefined;
  } catch {
    return undefined;
  }
}
