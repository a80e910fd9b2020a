import { checkCondition, conditionOf } from "../conditional-put.js";
import path from "node:path";
import type { Embeddings } from "@langchain/core/embeddings";
import type { Operation, OperationResults, PutOperation } from "@langchain/langgraph-checkpoint";
import { CachedEmbeddings } from "../../embeddings/cached-embeddings.js";
import { InvalidArgumentError, StoreClosedError } from "../../errors.js";
import { embeddingsOf, type CheckedIndexConfig } from "../index-config.js";
import { embedTexts, prepareBatch } from "./prepare-batch.js";
import { validateNamespace } from "../namespace.js";
import { bookkeepingMirrors } from "../hidden-namespaces.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import type { NearestItem } from "../nearest.js";
import type { DeleteNamespaceOptions, HNSWStoreOptions, StoreStats } from "./options.js";
import { readManifest, recordedFields, type IndexManifest } from "./snapshot.js";
import { StoreFiles } from "./store-files.js";
import { FileCipher, removeStaleRamFiles, type EncryptionKey, type EncryptionOptions } from "./cipher.js";
import { StoreState } from "./store-state.js";
import { startSweeper } from "../ttl.js";
import { MemoryStoreBase } from "../memory-store-base.js";
import { VectorIndex, type HnswSettings } from "./vector-index.js";
import { rebuildIndex, type ReindexOptions } from "./reindex.js";
import type { EmbedderInfo, MemoryEntry } from "../../migrate/entry.js";
import { BatchLock, type LockMode, type WriteHold } from "./batch-lock.js";
import { stateEntries, validateEntries, writeImport } from "./transfer.js";
import { checkStoreOptions, DEFAULT_HNSW, hnswSettingsFor, indexManifestFor } from "./settings.js";
import { countLive, expiryIn, nearestIn, stateStats } from "./state-queries.js";
import { Compactor } from "./compactor.js";
import { applyBatch, deleteWhere, isReadOnly, keywordSidesAhead, refuseNewVectors, type ApplyContext } from "./apply-batch.js";

/** @internal For tests only; see compactor.ts. */
export { compactionTestHooks } from "./compactor.js";
/** @internal For tests only; see vector-index.ts. */
export { graphLoadTestHooks } from "./vector-index.js";

/** A search with a query (its query is embedded before it runs). */
const searchesByQuery = (op: Operation) => "namespacePrefix" in op && typeof op.query === "string";

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
  private opening?: Promise<void>;
  private closing?: Promise<void>;
  private closed = false;
  /** Batches: readers together, writers alone; a compaction lets readers in while it writes files. */
  private readonly lock = new BatchLock();
  /** Log sequence, TTL refresh logging and compaction. */
  private readonly compactor: Compactor;
  private stopSweeper: () => void = () => {};
  private cipher?: FileCipher;
  /** The encryption options in force (rekey() replaces the key). */
  private encryption?: EncryptionOptions;

  constructor(options: HNSWStoreOptions = {}) {
    super();
    const index = checkStoreOptions(options);
    this.options = options;
    this.encryption = options.encryption ? { ...options.encryption } : undefined;
    this.clock = options.clock ?? Date.now;
    this.logger = options.logger ?? console;
    this.indexConfig = index;
    if (index) this.hnswSettings = hnswSettingsFor(index.dims, options.hnsw, index.hnsw);
    this.compactor = new Compactor({
      files: () => this.files,
      state: () => this.state,
      manifest: (vectors) => this.indexManifest(vectors),
      ownedCache: () => this.ownedCache,
      clock: () => this.clock(),
      logger: this.logger,
      compactAfterBytes: options.compactAfterBytes,
      compactLogRatio: options.compactLogRatio,
    });
  }

  /** The directory, or undefined for an in-memory store. */
  get path(): string | undefined {
    return this.options.path;
  }

  /**
   * True when searches with a `query` can only rank by keywords because the
   * store has no `index` and no `retrieval` was chosen. Memory components
   * warn about it once; `retrieval: "keyword"` says it is intended.
   */
  get keywordOnlyByDefault(): boolean {
    return !this.indexConfig && this.options.retrieval === undefined;
  }

  /**
   * Opens the store (lock, checks, load, replay). Called lazily by every
   * operation. Resolves once the items are checked and in place, without
   * waiting for hnswlib to read the HNSW graph (seconds for a large index):
   * gets, listings and one user's search (an exact scan) answer at once, and
   * whatever needs the graph (a search over many items, writes, `stats()`,
   * `compact()`, `close()`) waits for it.
   */
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
    if (this.indexConfig && this.indexConfig.fields === undefined && dir) {
      // No `fields` given: the directory's recorded ones (whoever created it), else ["$"].
      const recorded = recordedFields(dir);
      if (recorded) this.indexConfig = { ...this.indexConfig, fields: recorded };
    }
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
      await this.compactor.replay(state, loaded);
      needsEncryption = loaded.needsEncryption;
      this.files = files;
    } else if (this.hnswSettings) {
      state.vectors = VectorIndex.create(this.hnswSettings);
    }
    this.state = state;
    if (dir && this.files?.encrypted && needsEncryption) {
      this.ownedCache?.acceptPlainLinesOnce();
      await this.compactor.compactNow();
    }
    const sweepMinutes = this.options.ttl?.sweepIntervalMinutes ?? 60;
    const onSweepError = (err: unknown) => this.logger.warn(`langgraph-hnsw-memory: TTL sweep failed: ${String(err)}`);
    this.stopSweeper = startSweeper(this.options.ttl ? sweepMinutes : 0, () => this.sweepExpired(), onSweepError);
    // Sweep once at open too: a process that lives less than the interval still sweeps.
    if (dir && sweepMinutes > 0) {
      await this.lock.run("write", (hold) => this.deleteExpired(state, hold)).catch(onSweepError);
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
    return indexManifestFor({ config: this.indexConfig, storedIndex: this.storedIndex, settings: this.hnswSettings, embedderIdentity: this.options.embedderIdentity, vectors });
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
        if (this.files && (this.files.logBytes > 0 || this.compactor.owed)) await this.compactor.compactNow(hold);
      } catch (err) {
        this.logger.warn(`langgraph-hnsw-memory: compaction on close failed (${(err as Error)?.message ?? err}); every acknowledged write is in the log and is replayed on the next open`);
      } finally {
        // Nothing of this store may still read its files once close() resolves.
        await this.state?.vectors?.whenLoaded().catch(() => undefined);
        this.files?.release();
        this.files = undefined;
        this.state = undefined;
        this.compactor.owed = false;
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
   * half-applied one. Writers change the graph, so for a moment after an
   * open they first wait for it to load; readers that need it wait where
   * they do (see applyBatch).
   */
  private onState<T>(state: StoreState, fn: (hold: WriteHold) => Promise<T> | T, mode: LockMode = "write"): Promise<T> {
    return this.lock.run(mode, async (hold) => {
      if (this.state !== state || this.closed) throw this.closedError();
      if (mode === "write") await state.vectors?.whenLoaded();
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
    return this.onState(
      state,
      async () => {
        // A sealed index's vectors come from its graph only (loading for a moment after an open).
        if (state.vectors && !state.vectors.readsFromFile) await state.vectors.whenLoaded();
        return nearestIn(state, namespace, vector, this.clock());
      },
      "read",
    );
  }

  /** Puts with `ifValue` are compare-and-set, checked under the write lock before the batch is logged. */
  readonly conditionalPuts = true;

  // ---- get/search/put/delete: MemoryStoreBase validates them and routes them through batch() ----

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const state = await this.ensureOpen();
    const mode = isReadOnly(operations) ? "read" : "write";
    return this.onState(state, (hold) => this.runBatch(state, operations, hold), mode) as Promise<OperationResults<Op>>;
  }

  private async runBatch(state: StoreState, operations: Operation[], hold: WriteHold): Promise<unknown[]> {
    if (this.storedIndex && !this.indexConfig) refuseNewVectors(state, operations, this.storedIndex, this.options.path);
    const now = this.clock();
    checkConditions(state, operations, now);
    const preparing = prepareBatch(operations, {
      state,
      embeddings: this.embeddings,
      dims: this.indexConfig?.dims,
      retrieval: this.retrieval,
      ttl: this.options.ttl,
      now,
      logger: this.logger,
      queryAdapter: this.indexConfig?.queryAdapter,
      encodeLog: this.options.path !== undefined,
    });
    const applyCtx: ApplyContext = {
      now,
      refreshOnRead: this.options.ttl?.refreshOnRead !== false,
      retrieval: this.retrieval,
      exactScanThreshold: this.options.hnsw?.exactScanThreshold ?? DEFAULT_HNSW.exactScanThreshold,
    };
    if (this.embeddings && this.indexConfig && isReadOnly(operations) && operations.some(searchesByQuery)) applyCtx.keywordSides = await this.keywordSidesWhileEmbedding(state, operations, applyCtx, preparing);
    const prepared = await preparing;
    if (prepared.logOps.length) await this.compactor.writeLog(now, prepared.logOps, this.options.durability !== "process");
    const { results, touched } = await applyBatch(state, operations, prepared, applyCtx);
    if (touched.length) await this.compactor.logTouches(touched, now);
    // A read-only batch holds a read lock: it never compacts.
    if (prepared.logOps.length) await this.compactor.maybeCompact(false, hold);
    return results;
  }

  /**
   * A read-only batch's keyword sides, ranked on the event loop while its
   * queries are embedded (`preparing` has sent them to the embedder by the
   * time the next macrotask runs): a turn's preload then costs its embedding
   * plus the vector side, not plus both sides. Undefined when the batch is
   * invalid (`preparing` rejects with the error, which the caller awaits),
   * and when `preparing` settles before that macrotask (the queries were
   * embedded at once: a cache hit, precomputed vectors): then there is
   * nothing to overlap, and the batch ranks each keyword side itself, with
   * no extra turn of the event loop.
   */
  private async keywordSidesWhileEmbedding(state: StoreState, operations: Operation[], ctx: ApplyContext, preparing: Promise<unknown>): Promise<ApplyContext["keywordSides"]> {
    let immediate: NodeJS.Immediate | undefined;
    const settledFirst = await Promise.race([
      preparing.then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => (immediate = setImmediate(() => resolve(false)))),
    ]);
    if (settledFirst) {
      clearImmediate(immediate);
      return undefined;
    }
    try {
      return keywordSidesAhead(state, operations, ctx, true);
    } catch {
      // Left to the batch: it validates every operation and reports its own error.
      return undefined;
    }
  }

  private get retrieval(): RetrievalMode {
    return this.options.retrieval ?? (this.indexConfig ? "hybrid" : "keyword");
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
      await this.compactor.compactNow(hold);
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
        await this.compactor.compactNow(hold);
        this.compactor.owed = false;
      }
    });
  }

  /**
   * Deletes every item under `prefix` (whole labels) and returns how many:
   * the "forget this person" call. The prefix's bookkeeping goes with it:
   * its kept versions (`["memory_history", ...prefix]`) and its extraction
   * and episode cursors (`["memory_cursors", ...prefix]`,
   * `["episode_cursors", ...prefix]`, which hold the last reply's text); they
   * are not in the count. By default it also compacts at once, so
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
      let bookkeeping = 0;
      for (const mirror of bookkeepingMirrors(prefix)) bookkeeping += await this.deleteWhere(state, mirror, () => true, hold);
      const n = await this.deleteWhere(state, prefix, () => true, hold);
      if (n + bookkeeping > 0 && options.purge !== false) await this.compactor.maybeCompact(true, hold);
      return n;
    });
  }

  /** Deletes expired items now and returns how many. */
  async sweepExpired(): Promise<number> {
    const state = await this.ensureOpen();
    return this.onState(state, (hold) => this.deleteExpired(state, hold));
  }

  private deleteExpired(state: StoreState, hold: WriteHold): Promise<number> {
    const now = this.clock();
    return this.deleteWhere(state, [], (item) => item.expiresAt !== undefined && item.expiresAt <= now, hold, now);
  }

  private deleteWhere(state: StoreState, prefix: string[], pred: (item: { expiresAt?: number }) => boolean, hold: WriteHold, expiredBy?: number): Promise<number> {
    return deleteWhere(state, prefix, pred, { compactor: this.compactor, hold, clock: () => this.clock(), sync: this.options.durability !== "process", expiredBy });
  }

  /** Number of live items under `prefix` (all items by default). */
  async count(prefix: string[] = []): Promise<number> {
    validateNamespace(prefix, { what: "namespace prefix" });
    const state = await this.ensureOpen();
    return this.onState(state, () => countLive(state, prefix, this.clock()), "read");
  }

  /**
   * When an item expires (without refreshing it): a Date, null when it never
   * expires, undefined when there is no such live item.
   */
  async expiryOf(namespace: string[], key: string): Promise<Date | null | undefined> {
    validateNamespace(namespace);
    const state = await this.ensureOpen();
    return this.onState(state, () => expiryIn(state, namespace, key, () => this.clock()), "read");
  }

  /** Items, vectors, deleted labels and file sizes. */
  async stats(): Promise<StoreStats> {
    const state = await this.ensureOpen();
    return this.onState(
      state,
      async () => {
        await state.vectors?.whenLoaded();
        return stateStats(state, this.files);
      },
      "read",
    );
  }

  /**
   * Re-embeds every item with `index` (a new embedder, dims or fields) into
   * a fresh vector index, then switches to it and writes a snapshot that
   * records the new embedder. Nothing changes if embedding fails part way.
   */
  async reindex(options: ReindexOptions): Promise<void> {
    const state = await this.ensureOpen();
    await this.onState(state, async (hold) => {
      const rebuilt = await rebuildIndex(state, options, {
        current: this.hnswSettings,
        hnsw: this.options.hnsw,
        wrap: (inner) => this.wrapEmbeddings(inner, this.files?.dir),
      });
      this.indexConfig = rebuilt.index;
      this.storedIndex = undefined;
      this.hnswSettings = rebuilt.settings;
      await this.useEmbeddings(rebuilt.embeddings);
      state.swapVectors(rebuilt.vectors, rebuilt.assignments, rebuilt.fields);
      if (this.files) await this.compactor.compactNow(hold);
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
    const withVectors = options.vectors !== false;
    const pages = await this.onState(
      state,
      async () => {
        if (withVectors) await state.vectors?.whenLoaded();
        return [...stateEntries(state, options.batchSize ?? 500, withVectors)];
      },
      "read",
    );
    yield* pages;
  }

  /**
   * Writes entries as they are (timestamps and TTLs kept), replacing items
   * with the same namespace and key; entries without vectors are embedded
   * here. Compacts at the end, so the snapshot records the timestamps.
   */
  async importEntries(entries: MemoryEntry[]): Promise<void> {
    validateEntries(entries);
    const state = await this.ensureOpen();
    await this.onState(state, async (hold) => {
      const config = this.indexConfig;
      const written = await writeImport(state, entries, {
        index: config && this.embeddings ? { embeddings: this.embeddings, dims: config.dims } : undefined,
        writeLog: (at, ops, sync) => this.compactor.writeLog(at, ops, sync),
        sync: this.options.durability !== "process",
      });
      if (written > 0 && this.files) await this.compactor.compactNow(hold);
    });
  }
}

/** Refuses the batch (StoreConflictError) when a put's `ifValue` does not hold for the live item. */
function checkConditions(state: StoreState, operations: Operation[], now: number): void {
  for (const op of operations) {
    const cond = conditionOf(op);
    if (!cond) continue;
    const p = op as PutOperation;
    const item = state.items.get(p.namespace, p.key);
    const live = item && (item.expiresAt === undefined || item.expiresAt > now) ? item.value : undefined;
    checkCondition(cond, live, p);
  }
}
