import { refuseIncomplete } from "../store/hnsw/incomplete.js";
import fs from "node:fs";
import hnswlib from "hnswlib-node";
import { CorruptStoreError } from "../errors.js";
import { decodeVector } from "../embeddings/vector-codec.js";
import type { MemoryEntry } from "../migrate/entry.js";
import { namespaceKey } from "../store/namespace.js";
import { indexFile, itemsFile, logFile, readItems, readManifest, type Manifest } from "../store/hnsw/snapshot.js";
import { WriteAheadLog, type LogRecord } from "../store/hnsw/write-ahead-log.js";
import { verifyFile } from "../store/hnsw/checksum.js";

/** What {@link readDirectory} returns: the manifest and the items as of the end of the log. */
export interface DirectoryView {
  manifest: Manifest | null;
  /** Every item (expired ones too), in the portable form that `export` writes. */
  items: MemoryEntry[];
  /** Log records replayed on top of the snapshot. */
  logRecords: number;
  /** True when the log ended in a torn (partly written) line, which was ignored. */
  tornTail: boolean;
}


/**
 * Reads a directory's log without locking or changing it, checked as the
 * store checks it on open (header and sequence for format 2).
 */
export function readLogReadOnly(file: string, manifest?: Manifest | null): { records: LogRecord[]; tornTail: boolean } {
  const expect = manifest && manifest.formatVersion >= 2 ? { generation: manifest.generation, after: manifest.seq } : undefined;
  if (!fs.existsSync(file) && !expect) return { records: [], tornTail: false };
  const { records, droppedTornTail } = WriteAheadLog.read(file, expect);
  return { records, tornTail: droppedTornTail };
}

/**
 * Reads a store directory without locking or changing it: the last snapshot
 * plus the log. Safe beside a live writer (it only reads; a compaction that
 * switches generation while it reads is detected and the read retried), and
 * used for exports and for the read-only view of a locked directory.
 */
export function readDirectory(dir: string, options: { vectors?: boolean } = {}): DirectoryView {
  // A half-built migration target holds only part of the items: never read (or exported) as a store.
  refuseIncomplete(dir);
  for (let attempt = 0; ; attempt++) {
    try {
      const view = readOnce(dir, options.vectors ?? false);
      const after = readManifest(dir);
      if ((after?.generation ?? 0) === (view.manifest?.generation ?? 0)) return view;
    } catch (err) {
      // A file vanished under us: a compaction by the live writer. Retry.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(err instanceof CorruptStoreError && attempt < 2 && generationMoved(dir, err))) throw err;
    }
    if (attempt >= 4) throw new CorruptStoreError(`store directory ${dir} kept changing while it was read; try again`, dir);
  }
}

function generationMoved(dir: string, err: CorruptStoreError): boolean {
  const m = readManifest(dir);
  return m !== null && !err.file.includes(`-${m.generation}.`);
}

function readOnce(dir: string, withVectors: boolean): DirectoryView {
  const manifest = readManifest(dir);
  const gen = manifest?.generation ?? 0;
  if (manifest?.encryption) throw new CorruptStoreError(`store directory ${dir} is encrypted: this command needs the store opened with its key`, dir);
  const snapshot = readItems(itemsFile(dir, gen), manifest?.itemCount ?? 0, manifest?.files?.items);
  let points: ((label: number) => number[]) | undefined;
  if (withVectors && manifest?.index && snapshot.some((s) => s.vec?.length)) {
    const index = new hnswlib.HierarchicalNSW("cosine", manifest.index.dims);
    const file = indexFile(dir, gen);
    // Never hand hnswlib a file that fails its checksum (a corrupt index can crash the process).
    if (manifest.files?.vectors) verifyFile(file, manifest.files.vectors, "vector index");
    try {
      index.readIndexSync(file, true);
    } catch (err) {
      throw new CorruptStoreError(`cannot read vector index ${file}: ${(err as Error).message}`, file);
    }
    points = (label) => index.getPoint(label);
  }
  const items = new Map<string, MemoryEntry>();
  for (const s of snapshot) {
    const item: MemoryEntry = { namespace: s.ns, key: s.key, value: s.value, createdAt: s.createdAt, updatedAt: s.updatedAt };
    if (s.exp !== undefined) item.expiresAt = s.exp;
    if (s.ttl !== undefined) item.ttl = s.ttl;
    if (s.index !== undefined) item.index = s.index;
    if (points && s.vec?.length) item.vectors = s.vec.map(([label, field]) => ({ field, vector: points!(label) }));
    items.set(`${namespaceKey(s.ns)}\n${s.key}`, item);
  }
  const { records, tornTail } = readLogReadOnly(logFile(dir, gen), manifest);
  const replayed = records.filter((r) => r.seq > (manifest?.seq ?? 0));
  for (const record of replayed) {
    for (const op of record.ops) {
      const id = `${namespaceKey(op.ns)}\n${op.key}`;
      if (op.t === "del") items.delete(id);
      else if (op.t === "touch") {
        const it = items.get(id);
        if (it) it.expiresAt = op.exp;
      } else {
        const existing = items.get(id);
        const item: MemoryEntry = { namespace: op.ns, key: op.key, value: op.value, createdAt: existing?.createdAt ?? record.at, updatedAt: record.at };
        if (op.exp !== undefined) item.expiresAt = op.exp;
        if (op.ttl !== undefined) item.ttl = op.ttl;
        if (op.index !== undefined) item.index = op.index;
        if (withVectors && op.vec?.length) item.vectors = op.vec.map(([field, b64]) => ({ field, vector: Array.from(normalised(decodeVector(b64))) }));
        items.set(id, item);
      }
    }
  }
  return { manifest, items: [...items.values()], logRecords: replayed.length, tornTail };
}

/** hnswlib stores cosine vectors normalised; log vectors are normalised the same way so exports agree. */
function normalised(v: Float32Array | undefined): Float32Array {
  if (!v) return new Float32Array();
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}
