import { decodeVector, encodeVector } from "../embeddings/vector-codec.js";
import { CorruptStoreError } from "../errors.js";
import type { EmbedderInfo, MemoryEntry } from "./entry.js";

export const EXPORT_FORMAT = "langgraph-hnsw-memory/export";
export const EXPORT_VERSION = 1;

/** The first line of an export file. */
export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: number;
  /** The embedder of the vectors in the file; null when it has none. */
  embedder: EmbedderInfo | null;
  exportedAt: string;
}

/** One item line: the entry with vectors as base64 float32 (`v`: [field, base64][]). */
export function entryLine(e: MemoryEntry): string {
  const { vectors, ...rest } = e;
  const line: Record<string, unknown> = { ...rest };
  if (vectors?.length) line.v = vectors.map((x) => [x.field, encodeVector(x.vector)]);
  return JSON.stringify(line);
}

export function parseEntryLine(line: string, where: string): MemoryEntry {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new CorruptStoreError(`${where}: not JSON (${(err as Error).message})`, where);
  }
  if (!Array.isArray(raw.namespace) || typeof raw.key !== "string" || typeof raw.value !== "object" || raw.value === null) {
    throw new CorruptStoreError(`${where}: not an exported item`, where);
  }
  const { v, ...rest } = raw as { v?: [string, string][] } & Record<string, unknown>;
  const entry = rest as unknown as MemoryEntry;
  if (v) {
    entry.vectors = v.map(([field, b64]) => {
      const vec = decodeVector(b64);
      if (!vec) throw new CorruptStoreError(`${where}: vector of field ${field} is not float32 base64`, where);
      return { field, vector: Array.from(vec) };
    });
  }
  return entry;
}

export function parseHeader(line: string | undefined, file: string): ExportHeader {
  let h: Partial<ExportHeader>;
  try {
    h = JSON.parse(line ?? "");
  } catch {
    throw new CorruptStoreError(`${file} does not start with an export header`, file);
  }
  if (h.format !== EXPORT_FORMAT) throw new CorruptStoreError(`${file} is not a langgraph-hnsw-memory export (format ${JSON.stringify(h.format)})`, file);
  if ((h.version ?? 0) > EXPORT_VERSION) throw new CorruptStoreError(`${file} is export version ${h.version}, newer than ${EXPORT_VERSION}`, file);
  return h as ExportHeader;
}
