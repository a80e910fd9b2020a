import fs from "node:fs";
import { CliError } from "../errors.js";
import { decodeVector } from "../embeddings/vector-codec.js";
import { extractFieldTexts } from "../store/fields.js";
import { HNSWStore } from "../store/hnsw/hnsw-store.js";
import type { HNSWPutOperation } from "../store/hnsw/options.js";
import { readManifest } from "../store/hnsw/snapshot.js";
import { validateNamespace } from "../store/namespace.js";
import { validateValue } from "../store/validate-value.js";
import { EXPORT_FORMAT, EXPORT_VERSION, entryFromJson, type ExportHeader } from "../migrate/jsonl.js";
import type { MemoryEntry } from "../migrate/entry.js";
import { chooseEmbedder, knownEmbedderFor } from "./embedders.js";
import { isStoreDir, liveRefusal, livePid } from "./open-store.js";
import { PrecomputedEmbeddings } from "./precomputed-embeddings.js";
import type { Cancellation, Progress } from "./progress.js";

/** The first line of the CLI's export files before it wrote the library's format (still read). */
export const LEGACY_EXPORT_FORMAT = "langgraph-hnsw-memory-export";

interface LegacyHeader {
  $export: typeof LEGACY_EXPORT_FORMAT;
  version: 1;
  embedder: string | null;
  dims: number | null;
  fields: string[] | null;
}

/** What an import needs of a file's header. */
export type ImportHeader = Pick<ExportHeader, "embedder" | "fields">;

/**
 * Reads and checks an export file before anything is written: the library's
 * format (`exportStore`, and `langgraph-memory export`), or the format the
 * CLI wrote before (a `$export` header, ISO times, `vectors` pairs).
 */
export function readExportFile(file: string): { header: ImportHeader; items: MemoryEntry[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const parse = (l: string, n: number): unknown => {
    try {
      return JSON.parse(l);
    } catch {
      throw new CliError(`${file} line ${n} is not valid JSON`);
    }
  };
  const first = (lines.length ? parse(lines[0], 1) : undefined) as Partial<ExportHeader & LegacyHeader> | undefined;
  const legacy = first?.$export === LEGACY_EXPORT_FORMAT;
  if (!first || (!legacy && first.format !== EXPORT_FORMAT)) throw new CliError(`${file} is not a langgraph-memory export (its first line must be the export header)`);
  let header: ImportHeader;
  if (legacy) {
    if (first.version !== 1) throw new CliError(`${file} is export version ${first.version}; this CLI reads version 1`);
    const h = first as LegacyHeader;
    header = { embedder: h.embedder && h.dims ? { identity: h.embedder, dims: h.dims, fields: h.fields ?? ["$"] } : null, fields: h.fields };
  } else {
    if ((first.version ?? 0) > EXPORT_VERSION) throw new CliError(`${file} is export version ${first.version}; this CLI reads up to version ${EXPORT_VERSION}`);
    header = { embedder: first.embedder ?? null, fields: first.fields ?? first.embedder?.fields ?? null };
  }
  const items = lines.slice(1).map((l, i) => {
    const where = `${file} line ${i + 2}`;
    const raw = parse(l, i + 2);
    try {
      return checkEntry(legacy ? fromLegacy(raw) : entryFromJson(raw, where));
    } catch (err) {
      throw new CliError(`${where}: ${(err as Error).message.replace(`${where}: `, "")}`);
    }
  });
  return { header, items };
}

/** An item line of the old CLI format, as a {@link MemoryEntry}. */
function fromLegacy(raw: unknown): MemoryEntry {
  const it = raw as Record<string, unknown> & { vectors?: unknown };
  if (!it || typeof it !== "object") throw new Error("not an item object");
  const time = (t: unknown) => {
    const ms = typeof t === "string" ? Date.parse(t) : NaN;
    if (Number.isNaN(ms)) throw new Error(`bad timestamp ${JSON.stringify(t)}`);
    return ms;
  };
  const { vectors, createdAt, updatedAt, expiresAt, ...rest } = it;
  const entry = { ...rest, createdAt: time(createdAt), updatedAt: time(updatedAt) } as unknown as MemoryEntry;
  if (expiresAt !== undefined) entry.expiresAt = time(expiresAt);
  if (vectors !== undefined) {
    if (!Array.isArray(vectors)) throw new Error("vectors must be [field, base64] pairs");
    entry.vectors = vectors.map((pair) => {
      const vec = Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string" ? decodeVector(pair[1]) : undefined;
      if (!vec) throw new Error("vectors must be [field, base64] pairs");
      return { field: pair[0] as string, vector: Array.from(vec) };
    });
  }
  return entry;
}

function checkEntry(it: MemoryEntry): MemoryEntry {
  validateNamespace(it.namespace, { forWrite: true });
  if (typeof it.key !== "string") throw new Error(`key must be a string`);
  validateValue(it.value, "value");
  for (const t of [it.createdAt, it.updatedAt]) if (typeof t !== "number" || !Number.isFinite(t)) throw new Error(`bad timestamp ${JSON.stringify(t)}`);
  if (it.expiresAt !== undefined && (typeof it.expiresAt !== "number" || !Number.isFinite(it.expiresAt))) throw new Error(`bad expiresAt ${JSON.stringify(it.expiresAt)}`);
  return it;
}

/**
 * Writes `items` into the store directory `dir`, keeping keys, values,
 * timestamps, TTLs and index overrides. Vectors in the items are reused when
 * the directory's embedder is the one that made them (or the directory is
 * new); the rest are embedded with `--embeddings`, or the directory's own
 * embedder when this CLI knows it. Stops between batches on Ctrl-C; what was
 * written stays, consistent.
 */
export async function importItems(args: {
  dir: string;
  header: ImportHeader;
  items: MemoryEntry[];
  embeddings?: string;
  progress?: Progress;
  cancel?: Cancellation;
  batchSize?: number;
}): Promise<{ imported: number; skippedExpired: number; reusedVectors: boolean }> {
  const { dir, header } = args;
  const pid = fs.existsSync(dir) ? livePid(dir) : undefined;
  if (pid !== undefined) throw new CliError(liveRefusal(dir, pid));
  const target = fs.existsSync(dir) && isStoreDir(dir) ? readManifest(dir) : null;
  const targetIndex = target?.index ?? null;
  const withVectors = args.items.some((i) => i.vectors?.length);
  const fileEmbedder = header.embedder?.identity;
  const choice = args.embeddings ?? (targetIndex ? knownEmbedderFor(targetIndex.embedder) : undefined);
  const real = choice ? await chooseEmbedder(choice) : undefined;
  if (targetIndex && real && real.identity !== targetIndex.embedder) {
    throw new CliError(`the directory expects the embedder ${targetIndex.embedder} (${targetIndex.dims} dims), but --embeddings ${choice} is ${real.identity}`);
  }
  let identity: string | undefined;
  let dims: number | undefined;
  let fields: string[] | undefined;
  let reuse = false;
  if (targetIndex) {
    identity = targetIndex.embedder;
    dims = targetIndex.dims;
    fields = targetIndex.fields;
    reuse = withVectors && fileEmbedder === identity;
    if (!reuse && !real) {
      throw new CliError(`this directory expects the embedder ${identity} (${dims} dims) and the file's vectors are ${fileEmbedder ? `from ${fileEmbedder}` : "absent"}; pass --embeddings`);
    }
  } else if (real) {
    identity = real.identity;
    dims = real.dims;
    fields = header.fields ?? ["$"];
    reuse = withVectors && fileEmbedder === identity;
  } else if (withVectors && header.embedder && !(target && target.itemCount > 0)) {
    identity = header.embedder.identity;
    dims = header.embedder.dims;
    fields = header.fields ?? header.embedder.fields;
    reuse = true;
  }
  const embedder = identity ? new PrecomputedEmbeddings(identity, real?.embeddings) : undefined;
  let now = 0;
  const store = new HNSWStore({
    path: dir,
    index: embedder ? { dims: dims!, embeddings: embedder, fields } : undefined,
    withoutEmbedder: !embedder,
    embedderIdentity: identity,
    durability: "process",
    clock: () => now,
    ttl: { refreshOnRead: false, sweepIntervalMinutes: 0 },
    logger: { warn: (m: string) => process.stderr.write(`warning: ${m}\n`) },
  });
  await store.open();
  const wall = Date.now();
  const live = args.items.filter((i) => !i.expiresAt || i.expiresAt > wall);
  const batchSize = args.batchSize ?? 100;
  let imported = 0;
  args.progress?.setTotal(live.length);
  try {
    for (let i = 0; i < live.length; i += batchSize) {
      args.cancel?.check(`import (${imported} of ${live.length} items written)`);
      const chunk = live.slice(i, i + batchSize);
      if (embedder) {
        const known = new Map<string, number[]>();
        const texts: string[] = [];
        for (const it of chunk) {
          const fts = it.index === false ? [] : extractFieldTexts(it.value, it.index ?? fields ?? ["$"]);
          const byField = new Map(reuse ? (it.vectors ?? []).map((v) => [v.field, v.vector]) : []);
          for (const ft of fts) {
            texts.push(ft.text);
            const vector = byField.get(ft.field);
            if (vector) known.set(ft.text, vector);
          }
        }
        await embedder.prepare(known, texts);
      }
      for (const it of chunk) {
        const created = it.createdAt;
        const updated = it.updatedAt;
        const ttl = it.ttl ?? null;
        const op: HNSWPutOperation = { namespace: it.namespace, key: it.key, value: it.value, ttl };
        if (it.index !== undefined) op.index = it.index;
        // Two writes keep both timestamps: the first sets createdAt, the second
        // updatedAt (and the expiry, updatedAt + ttl; a later read refresh is not kept).
        if (created !== updated) {
          now = created;
          await store.batch([op]);
        }
        now = updated;
        await store.batch([op]);
        imported++;
      }
      embedder?.clear();
      args.progress?.update(imported);
    }
  } finally {
    now = Date.now();
    await store.close();
  }
  return { imported, skippedExpired: args.items.length - live.length, reusedVectors: reuse };
}
