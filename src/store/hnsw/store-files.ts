import fs from "node:fs";
import { EncryptionError, IncompatibleStoreError } from "../../errors.js";
import type { FileCipher } from "./cipher.js";
import { fileSize, writeFileAtomic } from "./files.js";
import { DirectoryLock } from "./lock.js";
import {
  FORMAT,
  FORMAT_VERSION,
  type IndexManifest,
  type Manifest,
  indexFile,
  itemsFile,
  logFile,
  manifestFile,
  readItems,
  readManifest,
  removeStrays,
  writeSnapshot,
} from "./snapshot.js";
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
  open(state: StoreState, index: IndexManifest | null, hnsw: HnswSettings | undefined, efSearchGiven: boolean): LoadedStore {
    fs.mkdirSync(this.dir, { recursive: true });
    this.lock = DirectoryLock.acquire(this.dir);
    try {
      let manifest = readManifest(this.dir);
      const fresh = !manifest;
      if (!manifest) {
        manifest = { format: FORMAT, formatVersion: FORMAT_VERSION, generation: 0, seq: 0, index, itemCount: 0, writtenAt: new Date().toISOString() };
      }
      const readCipher = this.checkEncryption(manifest, fresh);
      const needsEncryption = this.cipher !== undefined && readCipher === undefined;
      checkCompatible(this.dir, manifest.index, index, manifest.itemCount);
      const gen = manifest.generation;
      removeStrays(this.dir, gen);
      const items = readItems(itemsFile(this.dir, gen), manifest.itemCount, readCipher);
      if (hnsw) {
        // M and efConstruction are baked into the file; efSearch is the
        // caller's when given, else the one recorded (hnswlib resets it to 10).
        const m = manifest.index;
        const settings = m
          ? { ...hnsw, M: m.M, efConstruction: m.efConstruction, efSearch: efSearchGiven ? hnsw.efSearch : m.efSearch }
          : hnsw;
        const file = indexFile(this.dir, gen);
        // Items with vectors but no index file make load() fail, naming the file.
        const hasVectors = fs.existsSync(file) || items.some((i) => i.vec?.length);
        state.vectors = hasVectors ? VectorIndex.load(file, settings, state.usedLabels(items), readCipher) : VectorIndex.create(settings);
      }
      state.loadSnapshot(items);
      const { log, records, droppedTornTail } = WriteAheadLog.open(logFile(this.dir, gen), readCipher);
      if (fresh && this.cipher && readCipher) {
        // Record encryption before the first (sealed) log record is written.
        manifest = { ...manifest, encryption: this.cipher.manifest() };
        writeFileAtomic(manifestFile(this.dir), JSON.stringify(manifest, null, 2));
      }
      this.log = log;
      this.manifest = { ...manifest, index: index && state.vectors ? { ...index, M: state.vectors.settings.M, efConstruction: state.vectors.settings.efConstruction, efSearch: state.vectors.settings.efSearch } : index };
      const startSeq = manifest.seq;
      return { manifest, records: records.filter((r) => r.seq > startSeq), droppedTornTail, needsEncryption };
    } catch (err) {
      this.release();
      throw err;
    }
  }

  append(record: LogRecord, sync: boolean): void {
    this.log!.append(record, sync);
  }

  get logBytes(): number {
    return this.log?.size ?? 0;
  }

  get generation(): number {
    return this.manifest?.generation ?? 0;
  }

  /** Writes a fresh snapshot of `state` as of log sequence `seq`, and starts an empty log. */
  compact(state: StoreState, seq: number, index: IndexManifest | null): void {
    const generation = this.generation + 1;
    state.vectors?.scrubRemoved();
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
    writeSnapshot(this.dir, manifest, state.snapshotItems(), vectors ? (file) => vectors.write(file, cipher) : undefined, cipher);
    this.log?.close();
    this.log = WriteAheadLog.open(logFile(this.dir, generation), cipher).log;
    this.manifest = manifest;
  }

  /**
   * Checks the directory's encryption against this store's key, and returns
   * the cipher to read its files with (undefined: they are plain).
   */
  private checkEncryption(manifest: Manifest, fresh: boolean): FileCipher | undefined {
    if (manifest.encryption) {
      if (!this.cipher) {
        throw new EncryptionError(`store directory ${this.dir} is encrypted: open it with \`encryption: { key }\``);
      }
      this.cipher.verify(manifest.encryption, this.dir);
      return this.cipher;
    }
    if (!this.cipher) return undefined;
    const hasData = manifest.itemCount > 0 || fileSize(logFile(this.dir, manifest.generation)) > 0;
    if (fresh && !hasData) return this.cipher;
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

function checkCompatible(dir: string, stored: IndexManifest | null, wanted: IndexManifest | null, itemCount: number): void {
  if (!stored && !wanted) return;
  if (!stored && wanted) {
    if (itemCount === 0) return;
    throw new IncompatibleStoreError(
      `store directory ${dir} holds ${itemCount} items without vectors, but an index was configured; open it without \`index\` and call reindex({ index }) to embed them`,
    );
  }
  if (stored && !wanted) {
    throw new IncompatibleStoreError(
      `store directory ${dir} holds vectors built by ${stored.embedder} (${stored.dims} dims); open it with the same \`index\` config`,
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
