import fs from "node:fs";
import path from "node:path";
import hnswlib from "hnswlib-node";
import { decodeVector } from "../embeddings/vector-codec.js";
import { extractFieldTexts } from "../store/fields.js";
import { indexFile, itemsFile, logFile, readItems, readManifest, type Manifest, type SnapshotItem } from "../store/hnsw/snapshot.js";
import { readLogReadOnly } from "./directory-reader.js";
import { verifyFile } from "../store/hnsw/checksum.js";
import { refuseIncomplete } from "../store/hnsw/incomplete.js";
import type { LogRecord } from "../store/hnsw/write-ahead-log.js";

/** What `verify` found. */
export interface VerifyReport {
  ok: boolean;
  /** Damage: the exit code is non-zero when there is any. */
  problems: string[];
  /** Harmless findings (a torn last log line, leftover files of a crash during compaction). */
  notes: string[];
  checked: { items: number; vectors: number; logRecords: number; generation: number };
}

/**
 * An fsck of a store directory, read-only: the manifest, the items file's
 * footer and count, every log line's checksum and the sequence numbers
 * against the manifest, and, when the store has vectors, that each item has
 * a vector per indexed field, that each label is present in the index, owned
 * once, and found by an index search for its own vector.
 */
export async function verifyDirectory(dir: string, options: { onProgress?: (done: number, total: number) => void; check?: () => void } = {}): Promise<VerifyReport> {
  const problems: string[] = [];
  const notes: string[] = [];
  const checked = { items: 0, vectors: 0, logRecords: 0, generation: 0 };
  const report = () => ({ ok: problems.length === 0, problems, notes, checked });
  // A half-built migration target holds only part of the items: refused, whatever its files say.
  refuseIncomplete(dir);
  let manifest: Manifest | null;
  try {
    manifest = readManifest(dir);
  } catch (err) {
    problems.push((err as Error).message);
    return report();
  }
  const gen = manifest?.generation ?? 0;
  checked.generation = gen;
  if (!manifest && !fs.existsSync(logFile(dir, 0))) {
    problems.push(`${dir} holds no store (no store.json and no wal-0.log)`);
    return report();
  }
  // Leftovers of other generations: a crash during compaction; the store removes them on open.
  const own = new Set([path.basename(itemsFile(dir, gen)), path.basename(indexFile(dir, gen)), path.basename(logFile(dir, gen))]);
  for (const name of fs.readdirSync(dir)) {
    if (/^(items-\d+\.jsonl|vectors-\d+\.hnsw|wal-\d+\.log)(\.tmp)?$|^store\.json\.tmp$/.test(name) && !own.has(name)) notes.push(`leftover file ${name} from an interrupted compaction (removed on the next open)`);
  }
  if (manifest?.encryption) {
    problems.push(`${dir} is encrypted: verify reads files in clear and cannot check it without the key (open it with HNSWStore and \`encryption\` instead)`);
    return report();
  }
  let items: SnapshotItem[] = [];
  try {
    items = readItems(itemsFile(dir, gen), manifest?.itemCount ?? 0, manifest?.files?.items);
  } catch (err) {
    problems.push((err as Error).message);
  }
  checked.items = items.length;

  // The log: checksums, then sequence numbers continuing the manifest's.
  let records: LogRecord[] = [];
  try {
    const log = readLogReadOnly(logFile(dir, gen), manifest);
    records = log.records;
    if (log.tornTail) notes.push(`log ${logFile(dir, gen)} ends in a torn line (a crash mid-write; that batch was never acknowledged and is dropped on open)`);
  } catch (err) {
    problems.push((err as Error).message);
  }
  checked.logRecords = records.length;
  let expected = (manifest?.seq ?? 0) + 1;
  for (const r of records) {
    if (r.seq <= (manifest?.seq ?? 0)) continue;
    if (r.seq !== expected) {
      problems.push(`log ${logFile(dir, gen)}: record seq ${r.seq} where ${expected} was expected (the log does not continue the manifest's seq ${manifest?.seq ?? 0})`);
      break;
    }
    expected++;
    for (const op of r.ops ?? []) {
      if (!op || !["put", "del", "touch"].includes(op.t) || !Array.isArray(op.ns) || typeof op.key !== "string") {
        problems.push(`log ${logFile(dir, gen)}: record ${r.seq} holds a malformed operation`);
        continue;
      }
      if (op.t === "put" && manifest?.index) {
        for (const [field, b64] of op.vec ?? []) {
          const v = decodeVector(b64);
          if (!v || v.length !== manifest.index.dims) problems.push(`log record ${r.seq}: vector of ${JSON.stringify(op.ns)}/${op.key} field ${field} is not ${manifest.index.dims} floats`);
        }
      }
    }
  }

  // Vectors: present for every indexed field, owned once, in the index, found by it.
  const idx = manifest?.index;
  const withVec = items.filter((i) => i.vec?.length);
  if (!idx) {
    if (withVec.length) problems.push(`${withVec.length} items refer to vectors, but the manifest records no vector index`);
    return report();
  }
  for (const item of items) {
    if (item.index === false) continue;
    const fields = new Set(extractFieldTexts(item.value, item.index ?? idx.fields).map((f) => f.field));
    const have = new Set((item.vec ?? []).map(([, f]) => f));
    for (const f of fields) if (!have.has(f)) problems.push(`item ${JSON.stringify(item.ns)}/${item.key} has no vector for its indexed field ${f}`);
  }
  const file = indexFile(dir, gen);
  if (!fs.existsSync(file)) {
    if (withVec.length) problems.push(`vector index ${file} is missing, but ${withVec.length} items refer to it`);
    return report();
  }
  if (manifest?.files?.vectors) {
    // Never hand hnswlib a file that fails its checksum (a corrupt index can crash the process).
    try {
      verifyFile(file, manifest.files.vectors, "vector index");
    } catch (err) {
      problems.push((err as Error).message);
      return report();
    }
  }
  const index = new hnswlib.HierarchicalNSW("cosine", idx.dims);
  try {
    index.readIndexSync(file, true);
  } catch (err) {
    problems.push(`cannot read vector index ${file}: ${(err as Error).message}`);
    return report();
  }
  if (index.getNumDimensions() !== idx.dims) {
    problems.push(`vector index ${file} has ${index.getNumDimensions()} dims, the manifest says ${idx.dims}`);
    return report();
  }
  const count = index.getCurrentCount();
  const used = new Map<number, string>();
  const labels: { label: number; owner: string }[] = [];
  for (const item of withVec) {
    const owner = `${JSON.stringify(item.ns)}/${item.key}`;
    for (const [label] of item.vec!) {
      if (!Number.isInteger(label) || label < 0 || label >= count) problems.push(`item ${owner} refers to label ${label}, absent from ${file} (${count} slots)`);
      else if (used.has(label)) problems.push(`label ${label} is claimed by both ${used.get(label)} and ${owner}`);
      else {
        used.set(label, owner);
        labels.push({ label, owner });
      }
    }
  }
  index.setEf(Math.max(64, Math.min(400, count)));
  const deleted = new Set<number>();
  for (let l = 0; l < count; l++) if (!used.has(l)) deleted.add(l);
  const accept = (l: number) => !deleted.has(l);
  for (let i = 0; i < labels.length; i++) {
    const { label, owner } = labels[i];
    if (i % 200 === 0) {
      options.check?.();
      options.onProgress?.(i, labels.length);
      await new Promise((r) => setImmediate(r));
    }
    let point: number[];
    try {
      point = index.getPoint(label);
    } catch {
      problems.push(`vector of ${owner} (label ${label}) cannot be read from ${file}`);
      continue;
    }
    checked.vectors++;
    if (point.some((x) => !Number.isFinite(x))) {
      problems.push(`vector of ${owner} (label ${label}) holds a non-finite number`);
      continue;
    }
    const res = index.searchKnn(point, Math.min(10, labels.length), accept);
    const found = res.neighbors.some((n, j) => n === label || res.distances[j] < 1e-6);
    if (!found) problems.push(`vector of ${owner} (label ${label}) is not found by an index search for itself`);
  }
  options.onProgress?.(labels.length, labels.length);
  return report();
}
