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
  /**
   * The source store's index fields, also when the file carries no vectors
   * (`langgraph-memory export --no-vectors`), so an import can index alike.
   * @default embedder?.fields
   */
  fields?: string[] | null;
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
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new CorruptStoreError(`${where}: not JSON (${(err as Error).message})`, where);
  }
  return entryFromJson(raw, where);
}

/** An item line already parsed from JSON (see {@link entryLine}). */
export function entryFromJson(raw: unknown, where: string): MemoryEntry {
  const r = raw as Record<string, unknown> | null;
  if (!r || typeof r !== "object" || !Array.isArray(r.namespace) || typeof r.key !== "string" || typeof r.value !== "object" || r.value === null) {
    throw new CorruptStoreError(`${where}: not an exported item`, where);
  }
  const { v, ...rest } = r as { v?: [string, string][] } & Record<string, unknown>;
  const entry = rest as unknown as MemoryEntry;
  if (v !== undefined) {
    if (!Array.isArray(v)) throw new CorruptStoreError(`${where}: v must be [field, base64] pairs`, where);
    entry.vectors = v.map((pair) => {
      const [field, b64] = Array.isArray(pair) ? pair : [];
      const vec = typeof field === "string" && typeof b64 === "string" ? decodeVector(b64) : undefined;
      if (!vec) throw new CorruptStoreError(`${where}: vector of field ${String(field)} is not float32 base64`, where);
      return { field: field as string, vector: Array.from(vec) };
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
