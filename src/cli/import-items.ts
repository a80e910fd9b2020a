import fs from "node:fs";
import { CliError } from "../errors.js";
import { decodeVector } from "../embeddings/vector-codec.js";
import { extractFieldTexts } from "../store/fields.js";
import { HNSWStore } from "../store/hnsw/hnsw-store.js";
import type { HNSWPutOperation } from "../store/hnsw/options.js";
import { readManifest } from "../store/hnsw/snapshot.js";
import { validateNamespace } from "../store/namespace.js";
import { validateValue } from "../store/validate-value.js";
import type { ExportedItem } from "./directory-reader.js";
import { chooseEmbedder, knownEmbedderFor } from "./embedders.js";
import { isStoreDir, liveMessage, livePid } from "./open-store.js";
import { PrecomputedEmbeddings } from "./precomputed-embeddings.js";
import type { Cancellation, Progress } from "./progress.js";

export const EXPORT_FORMAT = "langgraph-hnsw-memory-export";

/** The first line of an export file. */
export interface ExportHeader {
  $export: typeof EXPORT_FORMAT;
  version: 1;
  /** The embedder that made the exported vectors (null: none). */
  embedder: string | null;
  dims: number | null;
  /** The source store's index fields. */
  fields: string[] | null;
  items: number;
  exportedAt: string;
}

/** Reads and checks an export file: header and items, before anything is written. */
export function readExportFile(file: string): { header: ExportHeader; items: ExportedItem[] } {
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
  const header = (lines.length ? parse(lines[0], 1) : undefined) as ExportHeader | undefined;
  if (!header || header.$export !== EXPORT_FORMAT) throw new CliError(`${file} is not a langgraph-memory export (its first line must be the export header)`);
  if (header.version !== 1) throw new CliError(`${file} is export version ${header.version}; this CLI reads version 1`);
  const items = lines.slice(1).map((l, i) => checkItem(parse(l, i + 2), `${file} line ${i + 2}`));
  return { header, items };
}

function checkItem(raw: unknown, where: string): ExportedItem {
  const it = raw as ExportedItem;
  if (!it || typeof it !== "object") throw new CliError(`${where} is not an item object`);
  try {
    validateNamespace(it.namespace, { forWrite: true });
    if (typeof it.key !== "string") throw new Error(`key must be a string`);
    validateValue(it.value, "value");
    for (const t of [it.createdAt, it.updatedAt]) if (typeof t !== "string" || Number.isNaN(Date.parse(t))) throw new Error(`bad timestamp ${JSON.stringify(t)}`);
    if (it.vectors !== undefined && !(Array.isArray(it.vectors) && it.vectors.every((v) => Array.isArray(v) && typeof v[0] === "string" && decodeVector(v[1]))))
      throw new Error("vectors must be [field, base64] pairs");
  } catch (err) {
    throw new CliError(`${where}: ${(err as Error).message}`);
  }
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
  header: Pick<ExportHeader, "embedder" | "dims" | "fields">;
  items: ExportedItem[];
  embeddings?: string;
  progress?: Progress;
  cancel?: Cancellation;
  batchSize?: number;
}): Promise<{ imported: number; skippedExpired: number; reusedVectors: boolean }> {
  const { dir, header } = args;
  const pid = fs.existsSync(dir) ? livePid(dir) : undefined;
  if (pid !== undefined) throw new CliError(liveMessage(dir, pid, false));
  const target = fs.existsSync(dir) && isStoreDir(dir) ? readManifest(dir) : null;
  const targetIndex = target?.index ?? null;
  const withVectors = args.items.some((i) => i.vectors?.length);
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
    reuse = withVectors && header.embedder === identity;
    if (!reuse && !real) {
      throw new CliError(`this directory expects the embedder ${identity} (${dims} dims) and the file's vectors are ${header.embedder ? `from ${header.embedder}` : "absent"}; pass --embeddings`);
    }
  } else if (real) {
    identity = real.identity;
    dims = real.dims;
    fields = header.fields ?? ["$"];
    reuse = withVectors && header.embedder === identity;
  } else if (withVectors && header.embedder && header.dims && !(target && target.itemCount > 0)) {
    identity = header.embedder;
    dims = header.dims;
    fields = header.fields ?? ["$"];
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
  const live = args.items.filter((i) => !i.expiresAt || Date.parse(i.expiresAt) > wall);
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
          const byField = new Map(reuse ? (it.vectors ?? []) : []);
          for (const ft of fts) {
            texts.push(ft.text);
            const b64 = byField.get(ft.field);
            if (b64) known.set(ft.text, Array.from(decodeVector(b64)!));
          }
        }
        await embedder.prepare(known, texts);
      }
      for (const it of chunk) {
        const created = Date.parse(it.createdAt);
        const updated = Date.parse(it.updatedAt);
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
