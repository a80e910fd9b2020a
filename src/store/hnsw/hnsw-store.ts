import path from "node:path";
import type { Embeddings } from "@langchain/core/embeddings";
import {
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { CachedEmbeddings } from "../../embeddings/cached-embeddings.js";
import { embedderIdentity } from "../../embeddings/identity.js";
import { EmbedderRequiredError, InvalidArgumentError, StoreClosedError } from "../../errors.js";
import { extractFieldTexts } from "../fields.js";
import { checkIndexConfig, embeddingsOf, type CheckedIndexConfig } from "../index-config.js";
import { embedTexts, prepareBatch, type PreparedBatch } from "./prepare-batch.js";
import { listNamespaces } from "./list-namespaces.js";
import { validateNamespace } from "../namespace.js";
import { nearestInGroup, runSearch, type RetrievalMode } from "./search.js";
import type { NearestItem } from "../nearest.js";
import type { DeleteNamespaceOptions, HNSWGetOperation, HNSWSearchOperation, HNSWStoreOptions, StoreStats } from "./options.js";
import { readManifest, type IndexManifest } from "./snapshot.js";
import { StoreFiles } from "./store-files.js";
import { FileCipher, removeStaleRamFiles, type EncryptionKey, type EncryptionOptions } from "./cipher.js";
import { StoreState } from "./store-state.js";
import { toItem } from "./item-table.js";
import { startSweeper, validateTtlConfig } from "../ttl.js";
import { MemoryStoreBase } from "../memory-store-base.js";
import { VectorIndex, type HnswSettings } from "./vector-index.js";
import { buildVectors, type ReindexOptions } from "./reindex.js";
import type { LogOp, LogRecord } from "./write-ahead-log.js";
import type { EmbedderInfo, MemoryEntry } from "../../migrate/entry.js";
import { validateValue } from "../validate-value.js";
import { BatchLock, type LockMode, type WriteHold } from "./batch-lock.js";
import { TimeSlicer } from "./time-slice.js";
import { prepareImport, stateEntries } from "./transfer.js";

/** Longest stretch a batch's apply runs before it yields to the event loop. */
const APPLY_SLICE_MS = 10;

/** Default of {@link HNSWStoreOptions.compactAfterBytes}. */
const COMPACT_AFTER_BYTES = 64 * 1024 * 1024;
/** Default of {@link HNSWStoreOptions.compactLogRatio}. */
const COMPACT_LOG_RATIO = 0.5;

/**
 * @internal For tests only (not exported from the package): awaited inside
 * every compaction once readers are let in and before any file is written,
 * so a test can hold a compaction at that point.
 */
export const compactionTestHooks: { frozen?: () => Promise<void> } = {};

/** A batch that only reads (gets, searches, listNamespaces) runs beside other reads and beside a compaction. */
function isReadOnly(operations: Operation[]): boolean {
  return Array.isArray(operations) && operations.every((op) => op !== null && typeof op === "object" && !("value" in op));
}

const DEFAULT_HNSW = { M: 16, efConstruction: 200, efSearch: 200, initialCapacity: 1024, exactScanThreshold: 2000 };

function defined<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The vector index settings for `dims`, from the caller's `hnsw` options,
 * then `index.hnsw` (PostgresStore names, already mapped), then the defaults.
 */
function hnswSettingsFor(dims: number, options: HNSWStoreOptions["hnsw"], fromIndex?: CheckedIndexConfig["hnsw"]): HnswSettings {
  const h = { ...DEFAULT_HNSW, ...defined(fromIndex), ...defined(options) };
  return { space: "cosine", dims, M: h.M, efConstruction: h.efConstruction, efSearch: h.efSearch, initialCapacity: h.initialCapacity, seed: 100 };
}

/**
 * A LangGraph `BaseStore` on an hnswlib index plus a JSON sidecar, that keeps
 * everything on disk, survives crashes and searches in sub-linear time.
 *
 * @example
 * ```ts
 * const store = new HNSWStore({
 *   path: "./memory",
 *   index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings() },
 * });
 * const graph = builder.compile({ checkpointer, store });
 * // …
 * await store.close();
 * ```
 *
 * **Order inside a batch.** Operations take effect in order: a get or search
 * that follows a put in the same batch sees that put. All texts the batch's
 * puts index are embedded in one `embedDocuments` call before anything
 * changes; if validation or embedding fails, the whole batch fails and
 * nothing is written.
 *
 * **Search order.** With a `query`: by relevance (see `retrieval`); items
 * without vectors follow, unscored. Without a `query`: most recently updated
 * first.
 */
export class HNSWStore extends MemoryStoreBase {
  private readonly options: HNSWStoreOptions;
  private readonly clock: () => number;
  private readonly logger: Pick<Console, "warn">;
  private hnswSettings?: HnswSettings;
  private indexConfig?: CheckedIndexConfig;
  /** The directory's index, kept as recorded when opened `withoutEmbedder`. */
  private storedIndex?: IndexManifest;
  private embeddings?: Embeddings;
  /** The embedding cache this store created (and so must close). */
  private ownedCache?: CachedEmbeddings;
  private state?: StoreState;
  private files?: StoreFiles;
  private seq = 0;
  private opening?: Promise<void>;
  private closing?: Promise<void>;
  private closed = false;
  /** A compaction failed (disk full…) after its writes were logged: retried after the next write and on close. */
  private compactionOwed = false;
  /** Batches: readers together, writers alone; a compaction lets readers in while it writes files. */
  private readonly lock = new BatchLock();
  /** A compaction is writing the snapshot: TTL refreshes by reads wait here, then go to the new log. */
  private compacting = false;
  private pendingTouches: LogOp[] = [];
  private stopSweeper: () => void = () => {};
  private cipher?: FileCipher;
  /** The encryption options in force (rekey() replaces the key). */
  private encryption?: EncryptionOptions;

  constructor(options: HNSWStoreOptions = {}) {
    super();
    validateTtlConfig(options.ttl);
    const index = options.index ? checkIndexConfig(options.index) : undefined;
    if (options.retrieval && !["vector", "keyword", "hybrid"].includes(options.retrieval)) {
      throw new InvalidArgumentError(`retrieval must be "vector", "keyword" or "hybrid", got ${JSON.stringify(options.retrieval)}`);
    }
    if (options.compactLogRatio !== undefined && !(typeof options.compactLogRatio === "number" && options.compactLogRatio >= 0 && Number.isFinite(options.compactLogRatio))) {
      throw new InvalidArgumentError(`compactLogRatio must be a finite number >= 0, got ${JSON.stringify(options.compactLogRatio)}`);
    }
    this.options = options;
    this.encryption = options.encryption ? { ...options.encryption } : undefined;
    this.clock = options.clock ?? Date.now;
    this.logger = options.logger ?? console;
    this.indexConfig = index;
    if (index) this.hnswSettings = hnswSettingsFor(index.dims, options.hnsw, index.hnsw);
  }

  /** The directory, or undefined for an in-memory store. */
  get path(): string | undefined {
    return this.options.path;
  }

  /** Opens the store (lock, load, replay). Called lazily by every operation. */
  async open(): Promise<void> {
    // open() while close() is pending: let the close finish, then open afresh.
    if (this.closing) await this.closing.catch(() => undefined);
    if (this.state) return;
    this.closed = false;
    this.opening ??= this.doOpen().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** LangGraph calls `start()` on stores it is given directly. */
  override async start(): Promise<void> {
    await this.open();
  }

  override async stop(): Promise<void> {
    await this.close();
  }

  private async doOpen(): Promise<void> {
    const dir = this.options.path ? path.resolve(this.options.path) : undefined;
    const config = this.indexConfig;
    if (dir && this.encryption) {
      this.cipher = await FileCipher.create(this.encryption);
      removeStaleRamFiles(this.cipher.ramDir);
    }
    if (config) await this.useEmbeddings(this.wrapEmbeddings(await embeddingsOf(config), dir));
    if (!config && dir && this.options.withoutEmbedder) {
      const stored = readManifest(dir)?.index ?? undefined;
      this.storedIndex = stored;
      if (stored) this.hnswSettings = { ...hnswSettingsFor(stored.dims, this.options.hnsw), M: stored.M, efConstruction: stored.efConstruction, efSearch: stored.efSearch };
    }
    const state = new StoreState(config ? (config.fields ?? ["$"]) : (this.storedIndex?.fields ?? null), undefined);
    let needsEncryption = false;
    if (dir) {
      const files = new StoreFiles(dir, this.cipher, this.encryption?.migratePlaintext ?? false);
      const loaded = await files.open(state, this.indexManifest(), this.hnswSettings, (this.options.hnsw?.efSearch ?? config?.hnsw.efSearch) !== undefined);
      if (loaded.droppedTornTail) this.logger.warn(`langgraph-hnsw-memory: dropped a torn last log record in ${dir} (left by a crash mid-write)`);
      this.seq = loaded.manifest.seq;
      for (const record of loaded.records) this.replay(state, record);
      needsEncryption = loaded.needsEncryption;
      this.files = files;
    } else if (this.hnswSettings) {
      state.vectors = VectorIndex.create(this.hnswSettings);
    }
    this.state = state;
    if (dir && this.files?.encrypted && needsEncryption) await this.compactNow();
    const sweepMinutes = this.options.ttl?.sweepIntervalMinutes ?? 60;
    const onSweepError = (err: unknown) => this.logger.warn(`langgraph-hnsw-memory: TTL sweep failed: ${String(err)}`);
    this.stopSweeper = startSweeper(this.options.ttl ? sweepMinutes : 0, () => this.sweepExpired(), onSweepError);
    // Sweep once at open too: a process that lives less than the interval still sweeps.
    if (dir && sweepMinutes > 0) {
      const now = this.clock();
      await this.lock.run("write", (hold) => this.deleteWhere(state, [], (item) => item.expiresAt !== undefined && item.expiresAt <= now, hold)).catch(onSweepError);
    }
  }

  /** The embedder behind the store's own cache (unless `embeddingCache: false`). */
  private wrapEmbeddings(embeddings: Embeddings, dir: string | undefined): Embeddings {
    if (this.options.embeddingCache === false) return embeddings;
    return new CachedEmbeddings({ embeddings, file: dir ? path.join(dir, "embedding-cache.jsonl") : undefined, lineCipher: this.cipher });
  }

  /** Switches to `embeddings`, closing the cache the store created before. */
  private async useEmbeddings(embeddings: Embeddings | undefined): Promise<void> {
    const previous = this.ownedCache;
    this.embeddings = embeddings;
    this.ownedCache = embeddings instanceof CachedEmbeddings && embeddings !== this.indexConfig?.embeddings ? embeddings : undefined;
    if (previous && previous !== this.ownedCache) await previous.close();
  }

  private indexManifest(vectors?: VectorIndex): IndexManifest | null {
    const config = this.indexConfig;
    if (!config && this.storedIndex) {
      const v = vectors?.settings;
      return v ? { ...this.storedIndex, M: v.M, efConstruction: v.efConstruction, efSearch: v.efSearch } : this.storedIndex;
    }
    if (!config || !this.hnswSettings) return null;
    const s = vectors?.settings ?? this.hnswSettings;
    return {
      space: "cosine",
      dims: config.dims,
      M: s.M,
      efConstruction: s.efConstruction,
      efSearch: s.efSearch,
      // Resolved in doOpen before any manifest is needed.
      embedder: this.options.embedderIdentity ?? embedderIdentity(config.embeddings!),
      fields: config.fields ?? ["$"],
    };
  }

  private replay(state: StoreState, record: LogRecord): void {
    for (const op of record.ops) state.applyLogOp(op, record.at);
    this.seq = record.seq;
  }

  /**
   * Flushes (compacts the log into a snapshot) and releases the directory.
   * From the moment it is called, new operations fail with
   * `StoreClosedError`; those already running finish first. If the final
   * compaction fails (disk full…), a warning is logged: every acknowledged
   * write is in the log and is replayed on the next open.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose().finally(() => {
      this.closing = undefined;
    });
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.closed = true; // synchronously, before any await
    if (this.opening) await this.opening.catch(() => undefined);
    if (!this.state) return;
    await this.lock.run("write", async (hold) => {
      this.stopSweeper();
      try {
        if (this.files && (this.files.logBytes > 0 || this.compactionOwed)) await this.compactNow(hold);
      } catch (err) {
        this.logger.warn(`langgraph-hnsw-memory: compaction on close failed (${(err as Error)?.message ?? err}); every acknowledged write is in the log and is replayed on the next open`);
      } finally {
        this.files?.release();
        this.files = undefined;
        this.state = undefined;
        this.compactionOwed = false;
        // Only the cache this store created is closed; a caller's embedder is theirs.
        if (this.ownedCache) await this.ownedCache.close();
        this.ownedCache = undefined;
      }
    });
  }

  private closedError(): StoreClosedError {
    return new StoreClosedError(`HNSWStore${this.options.path ? ` at ${this.options.path}` : ""} is closed; call open() to use it again`);
  }

  private async ensureOpen(): Promise<StoreState> {
    if (this.closed) throw this.closedError();
    if (!this.state) await this.open();
    if (this.closed || !this.state) throw this.closedError();
    return this.state;
  }

  /**
   * Runs `fn` on `state` under the batch lock, failing if the store was
   * closed (or reopened) meanwhile. Writers (the default) run alone, after
   * every task queued before them; readers run beside other readers and
   * beside a compaction that is writing its files, after every writer
   * queued before them, so they see every write issued earlier and never a
   * half-applied one.
   */
  private onState<T>(state: StoreState, fn: (hold: WriteHold) => Promise<T> | T, mode: LockMode = "write"): Promise<T> {
    return this.lock.run(mode, (hold) => {
      if (this.state !== state || this.closed) throw this.closedError();
      return fn(hold);
    });
  }

  /**
   * The item stored exactly under `namespace` whose vectors are most similar
   * to `text`, embedded as a document (a put of the same text then reuses the
   * vector from the embedding cache). An exact scan of that namespace, with
   * none of a search's ranking: the `remember` tool's duplicate check.
   * `null` when no item there has a vector; `undefined` when this store does
   * not rank by vectors (no index, or `retrieval: "keyword"`) or the
   * namespace holds more items than `hnsw.exactScanThreshold` (search it).
   */
  async nearestInNamespace(namespace: string[], text: string): Promise<NearestItem | null | undefined> {
    validateNamespace(namespace);
    if (typeof text !== "string") throw new InvalidArgumentError(`nearestInNamespace needs a text string, got ${typeof text}`);
    const state = await this.ensureOpen();
    if (!this.embeddings || !this.indexConfig || this.retrieval === "keyword") return undefined;
    const threshold = this.options.hnsw?.exactScanThreshold ?? DEFAULT_HNSW.exactScanThreshold;
    if ((state.items.group(namespace)?.items.size ?? 0) > threshold) return undefined;
    const vector = (await embedTexts(this.embeddings, [text], this.indexConfig.dims)).get(text)!;
    return this.onState(state, () => {
      const group = state.items.group(namespace);
      const hit = group && nearestInGroup(state, group, vector, this.clock());
      return hit ? { key: hit.item.key, score: hit.score } : null;
    }, "read");
  }

  // ---- get/search/put/delete: MemoryStoreBase validates them and routes them through batch() ----

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const state = await this.ensureOpen();
    const mode = isReadOnly(operations) ? "read" : "write";
    return this.onState(state, (hold) => this.runBatch(state, operations, hold), mode) as Promise<OperationResults<Op>>;
  }

  private async runBatch(state: StoreState, operations: Operation[], hold: WriteHold): Promise<unknown[]> {
    if (this.storedIndex && !this.indexConfig) this.refuseNewVectors(state, operations);
    const now = this.clock();
    const prepared = await prepareBatch(operations, {
      state,
      embeddings: this.embeddings,
      dims: this.indexConfig?.dims,
      retrieval: this.retrieval,
      ttl: this.options.ttl,
      now,
      logger: this.logger,
    });
    if (prepared.logOps.length) await this.writeLog({ seq: this.seq + 1, at: now, ops: prepared.logOps }, this.options.durability !== "process");
    const results = await this.apply(state, operations, prepared, now);
    // A read-only batch holds a read lock: it never compacts.
    if (prepared.logOps.length) await this.maybeCompact(false, hold);
    return results;
  }

  /** Opened `withoutEmbedder`: a put whose value has text to embed cannot be stored. */
  private refuseNewVectors(state: StoreState, operations: Operation[]): void {
    for (const op of operations) {
      const p = op as PutOperation;
      if (!op || typeof op !== "object" || !("value" in op) || p.value === null || p.value === undefined || p.index === false) continue;
      if (extractFieldTexts(p.value, state.pathsFor(p.index)).length === 0) continue;
      const embedder = this.storedIndex!.embedder;
      throw new EmbedderRequiredError(
        `store directory ${this.options.path} was opened without its embedder; storing ${JSON.stringify(p.namespace)}/${p.key} needs new vectors from ${embedder} (${this.storedIndex!.dims} dims): open it with that embedder, or put with index: false`,
        embedder,
      );
    }
  }

  private get retrieval(): RetrievalMode {
    return this.options.retrieval ?? (this.indexConfig ? "hybrid" : "keyword");
  }

  /**
   * Appends a record to the log (see StoreFiles.append) and takes its
   * sequence number, both at once, so that concurrent readers logging TTL
   * refreshes never reuse a number. With `sync`, resolves once it is
   * fdatasync'ed; if that fails, the record is cut off again and its number
   * given back (a writer holds the lock alone, so nothing followed it).
   */
  private writeLog(record: LogRecord, sync: boolean): Promise<void> {
    const durable = this.files?.append(record, sync);
    const before = this.seq;
    this.seq = record.seq;
    return (durable ?? Promise.resolve()).catch((err: unknown) => {
      this.seq = before;
      throw err;
    });
  }

  /**
   * Logs TTL refreshes made by reads (not fsynced: a lost refresh is
   * harmless). During a compaction they are held back and logged after it,
   * into the new log: the snapshot being written may or may not hold them,
   * so replaying them afterwards is what keeps them.
   */
  private async logTouches(ops: LogOp[], at: number): Promise<void> {
    if (this.compacting) {
      this.pendingTouches.push(...ops);
      return;
    }
    await this.writeLog({ seq: this.seq + 1, at, ops }, false);
  }

  /** Logs the refreshes held back during a compaction. A failure only loses refreshes: warned, not thrown. */
  private async flushTouches(): Promise<void> {
    const ops = this.pendingTouches;
    this.pendingTouches = [];
    if (!ops.length || !this.files) return;
    try {
      await this.writeLog({ seq: this.seq + 1, at: this.clock(), ops }, false);
    } catch (err) {
      this.logger.warn(`langgraph-hnsw-memory: logging ${ops.length} TTL refresh(es) after a compaction failed (${(err as Error)?.message ?? err}); those items keep their earlier expiry on disk`);
    }
  }

  /**
   * Applies a prepared batch in order. HNSW inserts are synchronous (about a
   * millisecond each), so a long batch yields to the event loop every
   * {@link APPLY_SLICE_MS}; other batches still wait (a writer holds the lock
   * alone, so no read sees a half-applied batch).
   */
  private async apply(state: StoreState, operations: Operation[], prepared: PreparedBatch, now: number): Promise<unknown[]> {
    const touched: LogOp[] = [];
    const storeRefresh = this.options.ttl?.refreshOnRead !== false;
    const touch = (item: { namespace: string[]; key: string; ttl?: number; expiresAt?: number }, refreshTtl: boolean | undefined) => {
      if (!(refreshTtl ?? storeRefresh) || item.ttl === undefined) return;
      item.expiresAt = now + item.ttl * 60_000;
      touched.push({ t: "touch", ns: item.namespace, key: item.key, exp: item.expiresAt });
    };
    const results: unknown[] = [];
    const slicer = new TimeSlicer(APPLY_SLICE_MS);
    for (let i = 0; i < operations.length; i++) {
      if (slicer.due) await slicer.pause();
      results.push(this.applyOne(state, operations[i]!, i, prepared, now, touch));
    }
    if (touched.length) await this.logTouches(touched, now);
    return results;
  }

  private applyOne(
    state: StoreState,
    op: Operation,
    i: number,
    prepared: PreparedBatch,
    now: number,
    touch: (item: { namespace: string[]; key: string; ttl?: number; expiresAt?: number }, refreshTtl: boolean | undefined) => void,
  ): unknown {
    if ("namespacePrefix" in op) {
      const s = op as SearchOperation;
      const ranked = runSearch(
        state,
        { namespacePrefix: s.namespacePrefix, filter: s.filter, limit: s.limit ?? 10, offset: s.offset ?? 0, query: s.query, queryVector: prepared.queryVectors.get(i) },
        { now, retrieval: this.retrieval, exactScanThreshold: this.options.hnsw?.exactScanThreshold ?? DEFAULT_HNSW.exactScanThreshold },
      );
      return ranked.map(({ item, score }) => {
        touch(item, (s as HNSWSearchOperation).refreshTtl);
        const out: SearchItem = toItem(item);
        if (score !== undefined) out.score = score;
        return out;
      });
    }
    if ("value" in op) {
      const put = prepared.puts.get(i);
      if (put) state.applyPut(put, now);
      else state.applyDelete((op as PutOperation).namespace, (op as PutOperation).key);
      return undefined;
    }
    if ("key" in op) {
      const g = op as GetOperation;
      const item = state.items.get(g.namespace, g.key);
      if (!item || (item.expiresAt !== undefined && item.expiresAt <= now)) return null;
      touch(item, (g as HNSWGetOperation).refreshTtl);
      return toItem(item);
    }
    return listNamespaces(state.items, op as ListNamespacesOperation, now);
  }

  /**
   * Compacts when the log is big enough (or a compaction is owed). Called
   * after writes that are already durable in the log, so a failure here is
   * never that write's failure: it is logged, and retried after the next
   * write and on close.
   */
  private async maybeCompact(force: boolean, hold: WriteHold): Promise<void> {
    if (!this.files) return;
    if (!force && !this.compactionOwed && this.files.logBytes < this.compactThreshold()) return;
    try {
      await this.compactNow(hold);
      this.compactionOwed = false;
    } catch (err) {
      this.compactionOwed = true;
      this.logger.warn(
        `langgraph-hnsw-memory: compaction failed (${(err as Error)?.message ?? err}); every acknowledged write is safe in the log, and compaction is retried after the next write`,
      );
    }
  }

  /** Log size that triggers a compaction: `compactAfterBytes`, or `compactLogRatio` × the snapshot when that is more. */
  private compactThreshold(): number {
    const floor = this.options.compactAfterBytes ?? COMPACT_AFTER_BYTES;
    const ratio = this.options.compactLogRatio ?? COMPACT_LOG_RATIO;
    return Math.max(floor, ratio * (this.files?.snapshotBytes ?? 0));
  }

  /**
   * Snapshot + empty log, then the embedding cache keeps only the vectors of
   * live items, so deleted data leaves every file.
   *
   * Runs under a writer's `hold`. Expired items are dropped and removed
   * vectors scrubbed first, alone; then the hold is shared with readers, and
   * the files are written off the event loop (items in short slices, the
   * index by hnswlib's threadpool write) while searches go on. Writers wait
   * until it is done. A read's TTL refresh meanwhile changes the item in
   * memory at once and is logged into the new log after the commit (see
   * {@link logTouches}). Without a hold (at open) nothing else is running.
   */
  private async compactNow(hold?: WriteHold): Promise<void> {
    const state = this.state!;
    // Expired items are not carried into the snapshot: they leave the disk here.
    const now = this.clock();
    const expired = [...state.items.items()].filter((item) => item.expiresAt !== undefined && item.expiresAt <= now);
    for (const item of expired) state.applyDelete(item.namespace, item.key);
    this.compacting = true;
    try {
      await this.files!.compact(state, this.seq, this.indexManifest(state.vectors), async () => {
        hold?.shareWithReaders();
        await compactionTestHooks.frozen?.();
      });
      if (this.ownedCache) {
        const texts: string[] = [];
        const slicer = new TimeSlicer(APPLY_SLICE_MS);
        for (const item of state.items.items()) {
          for (const f of extractFieldTexts(item.value, state.pathsFor(item.index))) texts.push(f.text);
          if (slicer.due) await slicer.pause();
        }
        await this.ownedCache.retainDocuments(texts);
      }
    } finally {
      this.compacting = false;
      await this.flushTouches();
    }
  }



  // ---- Beyond the BaseStore contract ----

  /**
   * Rotates the encryption key: the next snapshot, log and embedding cache are
   * sealed with `key` (one compaction), and files sealed with the old key are
   * removed. The store stays usable throughout; other operations wait for it.
   */
  async rekey(key: EncryptionKey | (() => EncryptionKey | Promise<EncryptionKey>)): Promise<void> {
    if (!this.encryption || !this.options.path) {
      throw new InvalidArgumentError("rekey() needs a store opened with a path and `encryption`");
    }
    const cipher = await FileCipher.create({ ...this.encryption, key });
    await this.ensureOpen();
    await this.lock.run("write", async (hold) => {
      this.files!.setCipher(cipher);
      this.ownedCache?.setLineCipher(cipher);
      this.cipher = cipher;
      this.encryption = { ...this.encryption!, key };
      await this.compactNow(hold);
    });
  }

  /**
   * Rewrites the snapshot from memory and empties the log. Deleted items and
   * their vectors leave the disk here. Runs by itself when the log reaches
   * `compactAfterBytes` (or `compactLogRatio` of the snapshot), and on
   * `close()`. Searches and gets go on while it writes the files; writes
   * wait for it.
   */
  async compact(): Promise<void> {
    const state = await this.ensureOpen();
    await this.onState(state, async (hold) => {
      if (this.files) {
        await this.compactNow(hold);
        this.compactionOwed = false;
      }
    });
  }

  /**
   * Deletes every item under `prefix` (whole labels) and returns how many:
   * the "forget this person" call. By default it also compacts at once, so
   * that when it resolves no text or vector of those items is left in any
   * file of the directory (snapshot, log, index, embedding cache). With
   * `{ purge: false }` that waits for the next compaction (a later
   * `deleteNamespace`, `compact()`, `close()`, or the log reaching
   * `compactAfterBytes`). If the purge fails (disk full…) the delete still
   * holds: a warning is logged and the purge is retried after the next write.
   */
  async deleteNamespace(prefix: string[], options: DeleteNamespaceOptions = {}): Promise<number> {
    validateNamespace(prefix, { forWrite: true, what: "namespace prefix" });
    if (options.purge !== undefined && typeof options.purge !== "boolean") {
      throw new InvalidArgumentError(`deleteNamespace purge must be a boolean, got ${JSON.stringify(options.purge)}`);
    }
    const state = await this.ensureOpen();
    return this.onState(state, async (hold) => {
      const n = await this.deleteWhere(state, prefix, () => true, hold);
      if (n > 0 && options.purge !== false) await this.maybeCompact(true, hold);
      return n;
    });
  }

  /** Deletes expired items now and returns how many. */
  async sweepExpired(): Promise<number> {
    const state = await this.ensureOpen();
    return this.onState(state, (hold) => {
      const now = this.clock();
      return this.deleteWhere(state, [], (item) => item.expiresAt !== undefined && item.expiresAt <= now, hold);
    });
  }

  private async deleteWhere(state: StoreState, prefix: string[], pred: (item: { expiresAt?: number }) => boolean, hold: WriteHold): Promise<number> {
    const ops: LogOp[] = [];
    for (const group of state.items.groupsUnder(prefix)) {
      for (const item of group.items.values()) if (pred(item)) ops.push({ t: "del", ns: item.namespace, key: item.key });
    }
    if (ops.length === 0) return 0;
    await this.writeLog({ seq: this.seq + 1, at: this.clock(), ops }, this.options.durability !== "process");
    for (const op of ops) state.applyDelete(op.ns, op.key);
    await this.maybeCompact(false, hold);
    return ops.length;
  }

  /** Number of live items under `prefix` (all items by default). */
  async count(prefix: string[] = []): Promise<number> {
    validateNamespace(prefix, { what: "namespace prefix" });
    const state = await this.ensureOpen();
    return this.onState(state, () => {
      const now = this.clock();
      let n = 0;
      for (const g of state.items.groupsUnder(prefix)) for (const item of g.items.values()) if (item.expiresAt === undefined || item.expiresAt > now) n++;
      return n;
    }, "read");
  }

  /**
   * When an item expires (without refreshing it): a Date, null when it never
   * expires, undefined when there is no such live item.
   */
  async expiryOf(namespace: string[], key: string): Promise<Date | null | undefined> {
    validateNamespace(namespace);
    const state = await this.ensureOpen();
    return this.onState(state, () => {
      const item = state.items.get(namespace, key);
      if (!item || (item.expiresAt !== undefined && item.expiresAt <= this.clock())) return undefined;
      return item.expiresAt === undefined ? null : new Date(item.expiresAt);
    }, "read");
  }

  /** Items, vectors, deleted labels and file sizes. */
  async stats(): Promise<StoreStats> {
    const state = await this.ensureOpen();
    return this.onState(state, () => ({
      items: state.items.size,
      vectors: state.vectors?.liveCount ?? 0,
      deletedLabels: state.vectors?.removedCount ?? 0,
      capacity: state.vectors?.capacity ?? 0,
      efSearch: state.vectors?.settings.efSearch ?? 0,
      logBytes: this.files?.logBytes ?? 0,
      files: this.files?.fileSizes() ?? {},
    }), "read");
  }

  /**
   * Re-embeds every item with `index` (a new embedder, dims or fields) into
   * a fresh vector index, then switches to it and writes a snapshot that
   * records the new embedder. Nothing changes if embedding fails part way.
   */
  async reindex(options: ReindexOptions): Promise<void> {
    const state = await this.ensureOpen();
    await this.onState(state, async (hold) => {
      if (!options?.index) throw new InvalidArgumentError("reindex needs { index: { dims, embeddings, fields? } }");
      const index = checkIndexConfig(options.index, "reindex index");
      const inner = await embeddingsOf(index);
      const settings: HnswSettings = this.hnswSettings ? { ...this.hnswSettings, dims: index.dims } : hnswSettingsFor(index.dims, this.options.hnsw, index.hnsw);
      const embeddings = this.wrapEmbeddings(inner, this.files?.dir);
      const fields = index.fields ?? ["$"];
      let rebuilt: Awaited<ReturnType<typeof buildVectors>>;
      try {
        rebuilt = await buildVectors({ state, embeddings, settings, fields, batchSize: options.batchSize, onProgress: options.onProgress });
      } catch (err) {
        if (embeddings !== inner) await (embeddings as CachedEmbeddings).close();
        throw err;
      }
      this.indexConfig = index;
      this.storedIndex = undefined;
      this.hnswSettings = settings;
      await this.useEmbeddings(embeddings);
      state.swapVectors(rebuilt.vectors, rebuilt.assignments, fields);
      if (this.files) await this.compactNow(hold);
    });
  }

  // ---- Migration (see src/migrate) ----

  /** The embedder recorded for this store's vectors, or null without an index. */
  async describeIndex(): Promise<EmbedderInfo | null> {
    const m = this.indexManifest();
    return m ? { identity: m.embedder, dims: m.dims, fields: m.fields } : null;
  }

  /** Every item (expired ones too) with timestamps, TTL and, when asked, vectors; in pages. */
  async *exportEntries(options: { batchSize?: number; vectors?: boolean } = {}): AsyncIterable<MemoryEntry[]> {
    const state = await this.ensureOpen();
    const pages = await this.onState(state, () => [...stateEntries(state, options.batchSize ?? 500, options.vectors !== false)], "read");
    yield* pages;
  }

  /**
   * Writes entries as they are (timestamps and TTLs kept), replacing items
   * with the same namespace and key; entries without vectors are embedded
   * here. Compacts at the end, so the snapshot records the timestamps.
   */
  async importEntries(entries: MemoryEntry[]): Promise<void> {
    for (const e of entries) {
      validateNamespace(e.namespace, { forWrite: true });
      validateValue(e.value, `import ${JSON.stringify(e.namespace)}/${e.key}`);
    }
    const state = await this.ensureOpen();
    await this.onState(state, async (hold) => {
      const config = this.indexConfig;
      const prepared = await prepareImport(entries, state, config && this.embeddings ? { embeddings: this.embeddings, dims: config.dims } : undefined);
      if (prepared.length === 0) return;
      const sync = this.options.durability !== "process";
      for (const [i, { op, entry }] of prepared.entries()) await this.writeLog({ seq: this.seq + 1, at: entry.updatedAt, ops: [op] }, sync && i === prepared.length - 1);
      const slicer = new TimeSlicer(APPLY_SLICE_MS);
      for (const { put, entry } of prepared) {
        state.applyPut(put, entry.updatedAt).createdAt = entry.createdAt;
        if (slicer.due) await slicer.pause();
      }
      if (this.files) await this.compactNow(hold);
    });
  }
}
