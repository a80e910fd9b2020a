import { classifyNamespace, isBookkeeping } from "../scope/layout-match.js";
import { checkLayout, type MemoryLayout } from "../scope/memory-layout.js";
import { checkBoolean, checkFunction, checkKnownKeys, checkNumber, checkOptionsObject } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import fs from "node:fs";
import readline from "node:readline";
import { InvalidArgumentError, MigrationVerificationError } from "../errors.js";
import { ContentChecksum } from "./checksum.js";
import { entryId, isMigratable, type EmbedderInfo, type MemoryEntry, type MigratableStore } from "./entry.js";
import { EXPORT_FORMAT, EXPORT_VERSION, entryLine, parseEntryLine, parseHeader, type ExportHeader } from "./jsonl.js";

/** Reported after every page of items. */
export interface MigrationProgress {
  phase: "copy" | "verify";
  /** Items handled so far in this phase. */
  done: number;
}

/** Options for {@link migrateStore}, {@link exportStore} and {@link importStore}. */
export interface MigrationOptions {
  /**
   * Items per page read from the source and written to the target (one transaction or log record each).
   * @default 500
   */
  batchSize?: number;
  /**
   * Called after every page, and during verification.
   * @default undefined
   */
  onProgress?: (progress: MigrationProgress) => void;
  /**
   * Re-read the target at the end and compare item count and content checksum with the source.
   * @default true
   */
  verify?: boolean;
  /**
   * `exportStore` only: count the exported items per kind of this layout
   * (`report.kinds`: each kind's own items, then `bookkeeping` for kept
   * versions, cursors and feedback, and `other` for namespaces the layout
   * does not name). Every item is exported either way.
   * @default undefined (no per-kind counts)
   */
  layout?: MemoryLayout;
}

/** What a migration did. */
export interface MigrationReport {
  /** Items copied. */
  items: number;
  /** Content checksum of the copied items (see ContentChecksum). */
  checksum: string;
  /** True when vectors were copied; false when the target re-embedded (another embedder) or has no index. */
  vectorsCopied: boolean;
  /** True when the target was re-read and matched. */
  verified: boolean;
  /** Items per kind of `options.layout`, plus `bookkeeping` and `other` (exportStore with a layout only). */
  kinds?: Record<string, number>;
}

/** Checks {@link MigrationOptions}: a batch size of 0, NaN or a fraction would loop forever or lose pages. */
function checkMigrationOptions(options: MigrationOptions): void {
  checkOptionsObject(options, "migration options");
  if (options.layout !== undefined) checkLayout(options.layout, "migration options layout");
  checkKnownKeys(options, OPTION_KEYS.migration);
  checkNumber(options.batchSize, "batchSize", { min: 1, integer: true, max: 1_000_000 });
  checkFunction(options.onProgress, "onProgress");
  checkBoolean(options.verify, "verify");
}

function requireMigratable(store: unknown, what: string): MigratableStore {
  if (!isMigratable(store)) throw new InvalidArgumentError(`${what} must be an HNSWStore or PostgresMemoryStore (a store with exportEntries/importEntries)`);
  return store;
}

/** Vectors are reusable when the same embedder built them for the same fields. */
export function sameEmbedder(a: EmbedderInfo | null, b: EmbedderInfo | null): boolean {
  return !!a && !!b && a.identity === b.identity && a.dims === b.dims && JSON.stringify(a.fields) === JSON.stringify(b.fields);
}

const strip = (e: MemoryEntry): MemoryEntry => {
  const { vectors: _drop, ...rest } = e;
  return rest;
};

async function verifyTarget(target: MigratableStore, ids: Set<string>, expected: ContentChecksum, options: MigrationOptions): Promise<void> {
  const got = new ContentChecksum();
  const batchSize = options.batchSize ?? 500;
  let seen = 0;
  for await (const page of target.exportEntries({ batchSize, vectors: false })) {
    for (const e of page) if (ids.has(entryId(e))) got.add(e);
    seen += page.length;
    options.onProgress?.({ phase: "verify", done: seen });
  }
  if (got.count !== expected.count || got.hex !== expected.hex) {
    throw new MigrationVerificationError(
      `migration check failed: the source had ${expected.count} items (checksum ${expected.hex}), the target has ${got.count} of them (checksum ${got.hex})`,
    );
  }
}

/** Copies pages of entries into the target, keeping vectors only when the embedders match. */
async function copyInto(target: MigratableStore, pages: AsyncIterable<MemoryEntry[]>, keepVectors: boolean, options: MigrationOptions) {
  const checksum = new ContentChecksum();
  const ids = new Set<string>();
  for await (const page of pages) {
    const batch = keepVectors ? page : page.map(strip);
    if (batch.length) await target.importEntries(batch);
    for (const e of page) {
      checksum.add(e);
      ids.add(entryId(e));
    }
    options.onProgress?.({ phase: "copy", done: checksum.count });
  }
  if (options.verify !== false) await verifyTarget(target, ids, checksum, options);
  return { items: checksum.count, checksum: checksum.hex, vectorsCopied: keepVectors, verified: options.verify !== false };
}

/**
 * Copies every item of `source` into `target` (HNSWStore ⇄ PostgresMemoryStore,
 * or two of one kind), with timestamps and TTLs. Vectors are copied when both
 * stores use the same embedder, dims and fields; otherwise the target embeds
 * the items itself. Items already in the target are replaced, so a re-run
 * after a crash duplicates nothing. At the end the target is re-read and its
 * count and content checksum are compared with the source.
 *
 * @throws {MigrationVerificationError} when the target does not match.
 */
export async function migrateStore(source: unknown, target: unknown, options: MigrationOptions = {}): Promise<MigrationReport> {
  checkMigrationOptions(options);
  const from = requireMigratable(source, "source");
  const to = requireMigratable(target, "target");
  const keep = sameEmbedder(await from.describeIndex(), await to.describeIndex());
  return copyInto(to, from.exportEntries({ batchSize: options.batchSize ?? 500, vectors: keep }), keep, options);
}

/**
 * Writes every item of `source` to a JSONL file: a header line (format,
 * version, embedder), then one item per line with its timestamps, TTL and
 * vectors (base64 float32). Written to `<file>.tmp` and renamed, so a crash
 * never leaves half a file under the name.
 */
export async function exportStore(source: unknown, file: string, options: MigrationOptions = {}): Promise<MigrationReport> {
  checkMigrationOptions(options);
  const from = requireMigratable(source, "source");
  const embedder = await from.describeIndex();
  const header: ExportHeader = { format: EXPORT_FORMAT, version: EXPORT_VERSION, embedder, exportedAt: new Date().toISOString() };
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, "w");
  const checksum = new ContentChecksum();
  const kinds = options.layout ? Object.fromEntries([...options.layout.kinds.map((k) => k.name), "bookkeeping", "other"].map((k) => [k, 0])) : undefined;
  try {
    fs.writeSync(fd, `${JSON.stringify(header)}\n`);
    for await (const page of from.exportEntries({ batchSize: options.batchSize ?? 500, vectors: !!embedder })) {
      if (page.length) fs.writeSync(fd, `${page.map(entryLine).join("\n")}\n`);
      for (const e of page) checksum.add(e);
      if (kinds && options.layout) for (const e of page) kinds[kindOfEntry(options.layout, e.namespace)]! += 1;
      options.onProgress?.({ phase: "copy", done: checksum.count });
    }
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  if (options.verify !== false) {
    const reread = new ContentChecksum();
    for await (const page of readExport(file, options.batchSize ?? 500).pages) for (const e of page) reread.add(e);
    if (reread.hex !== checksum.hex || reread.count !== checksum.count) throw new MigrationVerificationError(`export check failed: ${file} does not read back as written`);
  }
  return { items: checksum.count, checksum: checksum.hex, vectorsCopied: !!embedder, verified: options.verify !== false, ...(kinds ? { kinds } : {}) };
}

/** The per-kind bucket of an exported item's namespace. */
function kindOfEntry(layout: MemoryLayout, namespace: readonly string[]): string {
  if (isBookkeeping(layout, namespace)) return "bookkeeping";
  const r = classifyNamespace(layout, namespace);
  return r ? r.kind.name : "other";
}

/** Reads an export file: its header, then pages of entries. */
function readExport(file: string, batchSize: number): { header: Promise<ExportHeader>; pages: AsyncIterable<MemoryEntry[]> } {
  const lines = readline.createInterface({ input: fs.createReadStream(file, "utf8"), crlfDelay: Infinity })[Symbol.asyncIterator]();
  const header = lines.next().then((r) => parseHeader(r.done ? undefined : r.value, file));
  const pages = (async function* () {
    await header;
    let page: MemoryEntry[] = [];
    let n = 1;
    for (let r = await lines.next(); !r.done; r = await lines.next()) {
      n++;
      if (!r.value.trim()) continue;
      page.push(parseEntryLine(r.value, `${file}:${n}`));
      if (page.length >= batchSize) {
        yield page;
        page = [];
      }
    }
    if (page.length) yield page;
  })();
  return { header, pages };
}

/**
 * Loads a JSONL export into `target`, replacing items with the same namespace
 * and key (a re-run duplicates nothing). Vectors in the file are used when
 * the target has the same embedder; otherwise the target embeds the items.
 * Verified by count and content checksum at the end.
 */
export async function importStore(file: string, target: unknown, options: MigrationOptions = {}): Promise<MigrationReport> {
  checkMigrationOptions(options);
  const to = requireMigratable(target, "target");
  const { header, pages } = readExport(file, options.batchSize ?? 500);
  const keep = sameEmbedder((await header).embedder, await to.describeIndex());
  return copyInto(to, pages, keep, options);
}
