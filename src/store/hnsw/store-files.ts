import fs from "node:fs";
import path from "node:path";
import { CorruptStoreError, EncryptionError, IncompatibleStoreError } from "../../errors.js";
import type { FileCipher } from "./cipher.js";
import { fileChecksumsAsync, verifyFileAsync } from "./checksum.js";
import { fileSize } from "./files.js";
import { DirectoryLock } from "./lock.js";
import { refuseIncomplete } from "./incomplete.js";
import {
  FORMAT,
  FORMAT_VERSION,
  type IndexManifest,
  type Manifest,
  dataFiles,
  indexFile,
  itemsFile,
  logFile,
  manifestFile,
  readManifest,
  removeStrays,
  writeManifest,
  writeSnapshot,
} from "./snapshot.js";
import { readSnapshotItems } from "./snapshot-items.js";
import type { StoreState } from "./store-state.js";
import { VectorIndex, type HnswSettings } from "./vector-index.js";
import { WriteAheadLog, type LogRecord } from "./write-ahead-log.js";

/** What opening a directory yields: the snapshot state and the log to replay. */
export interface LoadedStore {
  manifest: Manifest;
  records: LogRecord[];
  droppedTornTail: boolean;
  /** A plain directory was opened with a key and `migratePlaintext`: compact now to encrypt it. */
  needsEncryption: boolean;
}

/**
 * The on-disk side of a store: the directory lock, the manifest
 * (`store.json`), the snapshot of one generation (`items-N.jsonl` +
 * `vectors-N.hnsw`) and the write-ahead log (`wal-N.log`) of changes since.
 */
export class StoreFiles {
  private lock?: DirectoryLock;
  private log?: WriteAheadLog;
  private manifest?: Manifest;

  /**
   * @param cipher encrypts every file written from now on (and decrypts the
   *   directory's files, once its manifest proved the key right)
   */
  constructor(
    readonly dir: string,
    private cipher?: FileCipher,
    private readonly migratePlaintext = false,
  ) {}

  /** Switches to another key: files written from now on (the next compaction) use it. */
  setCipher(cipher: FileCipher): void {
    this.cipher = cipher;
  }

  get encrypted(): boolean {
    return this.cipher !== undefined;
  }

  /**
   * Locks the directory and loads its snapshot into `state`. `index` is what
   * the caller's config says; a mismatch with the directory is an error.
   */
  async open(state: StoreState, index: IndexManifest | null, hnsw: HnswSettings | undefined, efSearchGiven: boolean): Promise<LoadedStore> {
    // A wrong key (or a plain directory opened with one) is refused before anything is
    // created or locked: such an open changes nothing in the directory, LOCK included.
    refuseIncomplete(this.dir);
    const before = fs.existsSync(this.dir) ? readManifest(this.dir) : null;
    if (before) this.checkEncryption(before);
    fs.mkdirSync(this.dir, { recursive: true });
    this.lock = DirectoryLock.acquire(this.dir);
    // The index read started in the background, if any: a failed open waits for it to finish
    // (never leave hnswlib reading behind it).
    let loading: Promise<VectorIndex> | undefined;
    try {
      const manifest = readManifest(this.dir) ?? this.createManifest(index);
      const readCipher = this.checkEncryption(manifest);
      const needsEncryption = this.cipher !== undefined && readCipher === undefined;
      checkCompatible(this.dir, manifest.index, index, manifest.itemCount);
      const gen = manifest.generation;
      removeStrays(this.dir, gen);
      // One worker takes both checksums, the items' first, while this thread scans the items; then
      // hnswlib reads the index on the thread pool, and the open does not wait for that: see VectorIndex.load.
      const file = indexFile(this.dir, gen);
      const items = itemsFile(this.dir, gen);
      const sums = manifest.files?.items && manifest.files.vectors && fs.existsSync(items) && fs.existsSync(file) ? fileChecksumsAsync([items, file]) : [];
      let settings: HnswSettings | undefined;
      if (hnsw) {
        // M and efConstruction are baked into the file; efSearch is the
        // caller's when given, else the one recorded (hnswlib resets it to 10).
        const m = manifest.index;
        settings = m ? { ...hnsw, M: m.M, efConstruction: m.efConstruction, efSearch: efSearchGiven ? hnsw.efSearch : m.efSearch } : hnsw;
        const checksum = manifest.files?.vectors;
        if (checksum || fs.existsSync(file)) {
          const s = settings;
          loading = (async () => {
            if (checksum) await verifyFileAsync(file, checksum, "vector index", sums[1] ?? fileChecksumsAsync([file])[0]!);
            return VectorIndex.load(file, s, readCipher);
          })();
          loading.catch(() => undefined); // awaited below; items may fail first
        }
      }
      const loadedItems = await readSnapshotItems(items, manifest.itemCount, manifest.files?.items, readCipher, sums[0]);
      if (settings && !loading && loadedItems.labelEnd > 0) {
        throw new CorruptStoreError(`cannot read vector index ${file}: it is missing, and items refer to its vectors`, file);
      }
      // The item table does not need the vectors: fill it while the index loads.
      state.loadSnapshot(loadedItems);
      if (settings) {
        if (loading) {
          const vectors = await loading;
          vectors.keepLabels(loadedItems.used);
          state.vectors = vectors;
        } else {
          state.vectors = VectorIndex.create(settings);
        }
      }
      const expect = manifest.formatVersion >= 2 ? { generation: gen, after: manifest.seq } : undefined;
      const { log, records, droppedTornTail } = WriteAheadLog.open(logFile(this.dir, gen), expect, readCipher);
      this.log = log;
      this.manifest = { ...manifest, index: index && state.vectors ? { ...index, M: state.vectors.settings.M, efConstruction: state.vectors.settings.efConstruction, efSearch: state.vectors.settings.efSearch } : index };
      return { manifest, records: records.filter((r) => r.seq > manifest.seq), droppedTornTail, needsEncryption };
    } catch (err) {
      await settled(loading);
      this.release();
      throw err;
    }
  }

  /**
   * The manifest of a directory that has none. A new directory gets one
   * (and its empty log) at once. A directory that already holds data files
   * without a manifest is damaged: nothing is deleted, the error names the
   * file. The one exception is a format-1 directory whose first process
   * never compacted (only `wal-0.log`, without a header): replayed whole.
   */
  private createManifest(index: IndexManifest | null): Manifest {
    const manifest: Manifest = { format: FORMAT, formatVersion: FORMAT_VERSION, generation: 0, seq: 0, index, itemCount: 0, writtenAt: new Date().toISOString(), files: {}, ...(this.cipher ? { encryption: this.cipher.manifest() } : {}) };
    const data = dataFiles(this.dir);
    if (data.length === 1 && data[0] === "wal-0.log" && !fs.readFileSync(logFile(this.dir, 0), "utf8").slice(0, 200).includes('"wal":')) {
      return { ...manifest, formatVersion: 1, files: undefined, encryption: undefined };
    }
    if (data.length > 0) {
      const file = manifestFile(this.dir);
      throw new CorruptStoreError(
        `manifest ${file} is missing, but ${this.dir} holds ${data.join(", ")}; nothing was deleted. Restore ${path.basename(file)} from a backup (or move the directory aside)`,
        file,
      );
    }
    WriteAheadLog.create(logFile(this.dir, 0), 0, 0);
    writeManifest(this.dir, manifest);
    return manifest;
  }

  /**
   * Appends a record to the log with one write before it returns (or
   * throws); with `sync`, the returned promise resolves once it is
   * fdatasync'ed (off the event loop). A failure leaves nothing behind.
   */
  append(record: LogRecord, sync: boolean): Promise<void> {
    // No log: a compaction committed but could not open the next one. Refuse
    // the write rather than append to a log that is no longer replayed.
    if (!this.log) throw new CorruptStoreError(`the log of ${this.dir} could not be opened after the last compaction; reopen the store`, logFile(this.dir, this.generation));
    return this.log.append(record, sync);
  }

  get logBytes(): number {
    return this.log?.size ?? 0;
  }

  /** Bytes of the committed snapshot's files (items and index), as its manifest recorded them. */
  get snapshotBytes(): number {
    let total = 0;
    for (const f of Object.values(this.manifest?.files ?? {})) total += (f as { bytes?: number } | undefined)?.bytes ?? 0;
    return total;
  }

  get generation(): number {
    return this.manifest?.generation ?? 0;
  }

  /**
   * Writes a fresh snapshot of `state` as of log sequence `seq`, and starts
   * an empty log. The only change to `state` (scrubbing removed vectors)
   * happens first, synchronously; then `frozen` is called, and from there on
   * `state` is only read, so readers may run while the files are written
   * (off the event loop, see {@link writeSnapshot}). Nothing may change
   * `state` or append to the log until this settles.
   */
  async compact(state: StoreState, seq: number, index: IndexManifest | null, frozen?: () => Promise<void>): Promise<void> {
    const generation = this.generation + 1;
    state.vectors?.scrubRemoved();
    await frozen?.();
    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      generation,
      seq,
      index,
      itemCount: state.items.size,
      writtenAt: new Date().toISOString(),
      ...(this.cipher ? { encryption: this.cipher.manifest() } : {}),
    };
    const vectors = state.vectors;
    const cipher = this.cipher;
    const files = await writeSnapshot(this.dir, manifest, state.snapshotItems(), vectors ? (file) => vectors.write(file, cipher) : undefined, cipher);
    this.log?.close();
    this.log = undefined;
    this.log = WriteAheadLog.open(logFile(this.dir, generation), { generation, after: seq }, cipher).log;
    this.manifest = { ...manifest, files };
  }

  /**
   * Checks the directory's encryption against this store's key, and returns
   * the cipher to read its files with (undefined: they are plain).
   */
  private checkEncryption(manifest: Manifest): FileCipher | undefined {
    if (manifest.encryption) {
      if (!this.cipher) {
        throw new EncryptionError(`store directory ${this.dir} is encrypted: open it with \`encryption: { key }\``);
      }
      this.cipher.verify(manifest.encryption, this.dir);
      return this.cipher;
    }
    if (!this.cipher) return undefined;
    const header = manifest.formatVersion >= 2 ? 10 + JSON.stringify({ wal: manifest.generation, after: manifest.seq }).length : 0;
    const hasData = manifest.itemCount > 0 || fileSize(logFile(this.dir, manifest.generation)) > header;
    if (hasData && !this.migratePlaintext) {
      throw new EncryptionError(
        `store directory ${this.dir} is not encrypted; pass \`encryption: { key, migratePlaintext: true }\` to encrypt it in place (one compaction)`,
      );
    }
    return undefined;
  }

  /** Sizes of the store's files, by name. */
  fileSizes(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const name of fs.readdirSync(this.dir)) out[name] = fileSize(`${this.dir}/${name}`);
    return out;
  }

  release(): void {
    try {
      this.log?.close();
    } catch {
      // already closed
    }
    this.log = undefined;
    this.lock?.release();
    this.lock = undefined;
  }
}

/** Waits for a background read to finish, whatever its outcome (never leave hnswlib reading behind a failed open). */
async function settled(loading: Promise<VectorIndex> | undefined): Promise<void> {
  const vectors = await loading?.catch(() => undefined);
  await vectors?.whenLoaded().catch(() => undefined);
}

function checkCompatible(dir: string, stored: IndexManifest | null, wanted: IndexManifest | null, itemCount: number): void {
  if (!stored && !wanted) return;
  if (!stored && wanted) {
    if (itemCount === 0) return;
    throw new IncompatibleStoreError(
      `store directory ${dir} holds ${itemCount} items without vectors, but an index was configured; open it without \`index\` and call reindex({ index }) to embed them`,
    );
  }
  if (stored && !wanted) {
    const local = stored.embedder.startsWith("UniversalSentenceEncoderEmbeddings:");
    const preset = local && JSON.stringify(stored.fields) === JSON.stringify(["text"]);
    const embeddings = local ? "new UniversalSentenceEncoderEmbeddings()" : `<the ${stored.embedder} embedder>`;
    throw new IncompatibleStoreError(
      `store directory ${dir} holds vectors built by ${stored.embedder} (${stored.dims} dims), and this HNSWStore was given no \`index\` ` +
        `(without one it has no embedder at all): open it with index: { dims: ${stored.dims}, embeddings: ${embeddings}, fields: ${JSON.stringify(stored.fields ?? ["$"])} }` +
        `${preset ? " (localMemoryIndex() builds exactly that)" : ""}, or with withoutEmbedder: true for reads and keyword search`,
    );
  }
  const s = stored!;
  const w = wanted!;
  if (s.dims !== w.dims) {
    throw new IncompatibleStoreError(`store directory ${dir} holds ${s.dims}-dim vectors, but index.dims is ${w.dims}; use the original embedder, or reindex()`);
  }
  if (s.space !== w.space) throw new IncompatibleStoreError(`store directory ${dir} uses the ${s.space} space, not ${w.space}`);
  if (s.embedder !== w.embedder) {
    throw new IncompatibleStoreError(
      `store directory ${dir} was embedded with ${s.embedder}, but the configured embedder is ${w.embedder}; open it with the original embedder and call reindex({ index }) to switch`,
    );
  }
  // Directories written before fields were recorded have none to compare.
  if (Array.isArray(s.fields) && JSON.stringify(s.fields) !== JSON.stringify(w.fields)) {
    throw new IncompatibleStoreError(
      `store directory ${dir} embedded the fields ${JSON.stringify(s.fields)}, but index.fields is ${JSON.stringify(w.fields)}; open it with the original fields and call reindex({ index }) to switch`,
    );
  }
}
