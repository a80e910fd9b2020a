import path from "node:path";
import type { Embeddings } from "@langchain/core/embeddings";
import {
  BaseStore,
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
import { InvalidArgumentError, StoreClosedError } from "../../errors.js";
import { extractFieldTexts } from "../fields.js";
import { checkIndexConfig, embeddingsOf, type CheckedIndexConfig } from "../index-config.js";
import { prepareBatch, type PreparedBatch } from "./prepare-batch.js";
import { listNamespaces } from "./list-namespaces.js";
import { validateNamespace } from "../namespace.js";
import { runSearch, type RetrievalMode } from "./search.js";
import type { HNSWGetOperation, HNSWPutOperation, HNSWSearchOperation, HNSWStoreOptions, StoreStats } from "./options.js";
import type { IndexManifest } from "./snapshot.js";
import { StoreFiles } from "./store-files.js";
import { FileCipher, removeStaleRamFiles, type EncryptionKey, type EncryptionOptions } from "./cipher.js";
import { StoreState } from "./store-state.js";
import { toItem } from "./item-table.js";
import { startSweeper, validateTtlConfig, validateTtlMinutes } from "../ttl.js";
import { VectorIndex, type HnswSettings } from "./vector-index.js";
import { buildVectors, type ReindexOptions } from "./reindex.js";
import type { LogOp, LogRecord } from "./write-ahead-log.js";

const DEFAULT_HNSW = { M: 16, efConstruction: 200, efSearch: 200, initialCapacity: 1024, exactScanThreshold: 2000 };

function checkRefreshTtl(value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") throw new InvalidArgumentError(`refreshTtl must be a boolean, got ${JSON.stringify(value)}`);
}

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
export class HNSWStore extends BaseStore {
  private readonly options: HNSWStoreOptions;
  private readonly clock: () => number;
  private readonly logger: Pick<Console, "warn">;
  private hnswSettings?: HnswSettings;
  private indexConfig?: CheckedIndexConfig;
  private embeddings?: Embeddings;
  /** The embedding cache this store created (and so must close). */
  private ownedCache?: CachedEmbeddings;
  private state?: StoreState;
  private files?: StoreFiles;
  private seq = 0;
  private opening?: Promise<void>;
  private closed = false;
  private tail: Promise<unknown> = Promise.resolve();
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
    const state = new StoreState(config ? (config.fields ?? ["$"]) : null, undefined);
    let needsEncryption = false;
    if (dir) {
      const files = new StoreFiles(dir, this.cipher, this.encryption?.migratePlaintext ?? false);
      const loaded = files.open(state, this.indexManifest(), this.hnswSettings, (this.options.hnsw?.efSearch ?? config?.hnsw.efSearch) !== undefined);
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
    this.stopSweeper = startSweeper(this.options.ttl ? (this.options.ttl.sweepIntervalMinutes ?? 60) : 0, () => this.sweepExpired(), (err) =>
      this.logger.warn(`langgraph-hnsw-memory: TTL sweep failed: ${String(err)}`),
    );
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

  /** Flushes (compacts the log into a snapshot) and releases the directory. */
  async close(): Promise<void> {
    if (this.opening) await this.opening.catch(() => undefined);
    if (this.closed || !this.state) {
      this.closed = true;
      return;
    }
    this.closed = true;
    await this.exclusive(async () => {
      this.stopSweeper();
      try {
        if (this.files && this.files.logBytes > 0) await this.compactNow();
      } finally {
        this.files?.release();
        this.files = undefined;
        this.state = undefined;
        // Only the cache this store created is closed; a caller's embedder is theirs.
        if (this.ownedCache) await this.ownedCache.close();
        this.ownedCache = undefined;
      }
    });
  }

  private async ensureOpen(): Promise<StoreState> {
    if (this.closed) throw new StoreClosedError(`HNSWStore${this.options.path ? ` at ${this.options.path}` : ""} is closed; call open() to use it again`);
    if (!this.state) await this.open();
    return this.state!;
  }

  /** Runs `fn` after every earlier batch has finished (one writer at a time). */
  private exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  // ---- BaseStore entry points: validated here, all routed through batch() ----

  /**
   * Reads an item. `options.refreshTtl` (as in PostgresStore) overrides
   * `ttl.refreshOnRead` for this read.
   */
  override async get(namespace: string[], key: string, options: { refreshTtl?: boolean } = {}): Promise<Item | null> {
    validateNamespace(namespace);
    checkRefreshTtl(options.refreshTtl);
    return (await this.batch([{ namespace, key, refreshTtl: options.refreshTtl } as HNSWGetOperation]))[0];
  }

  /**
   * Searches under a prefix. `options.refreshTtl` (as in PostgresStore)
   * overrides `ttl.refreshOnRead` for the items this search returns.
   */
  override async search(
    namespacePrefix: string[],
    options: { filter?: Record<string, unknown>; limit?: number; offset?: number; query?: string; refreshTtl?: boolean } = {},
  ): Promise<SearchItem[]> {
    validateNamespace(namespacePrefix, { what: "namespace prefix" });
    checkRefreshTtl(options.refreshTtl);
    const { filter, limit = 10, offset = 0, query, refreshTtl } = options;
    return (await this.batch([{ namespacePrefix, filter, limit, offset, query, refreshTtl } as HNSWSearchOperation]))[0];
  }

  /**
   * Stores (or replaces) an item. `options.ttl` is in minutes; `null` means
   * never expire, overriding `ttl.defaultTtl`.
   */
  override async put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
    options: { ttl?: number | null } = {},
  ): Promise<void> {
    validateNamespace(namespace, { forWrite: true });
    validateTtlMinutes(options.ttl, "put ttl");
    await this.batch([{ namespace, key, value, index, ttl: options.ttl } as HNSWPutOperation]);
  }

  override async delete(namespace: string[], key: string): Promise<void> {
    validateNamespace(namespace);
    await this.batch([{ namespace, key, value: null }]);
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const state = await this.ensureOpen();
    return this.exclusive(() => this.runBatch(state, operations)) as Promise<OperationResults<Op>>;
  }

  private async runBatch(state: StoreState, operations: Operation[]): Promise<unknown[]> {
    if (this.state !== state) throw new StoreClosedError("HNSWStore was closed while the batch waited");
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
    if (prepared.logOps.length) this.writeLog({ seq: this.seq + 1, at: now, ops: prepared.logOps }, this.options.durability !== "process");
    const results = this.apply(state, operations, prepared, now);
    await this.maybeCompact();
    return results;
  }

  private get retrieval(): RetrievalMode {
    return this.options.retrieval ?? (this.indexConfig ? "hybrid" : "keyword");
  }

  private writeLog(record: LogRecord, sync: boolean): void {
    this.files?.append(record, sync);
    this.seq = record.seq;
  }

  private apply(state: StoreState, operations: Operation[], prepared: PreparedBatch, now: number): unknown[] {
    const touched: LogOp[] = [];
    const storeRefresh = this.options.ttl?.refreshOnRead !== false;
    const touch = (item: { namespace: string[]; key: string; ttl?: number; expiresAt?: number }, refreshTtl: boolean | undefined) => {
      if (!(refreshTtl ?? storeRefresh) || item.ttl === undefined) return;
      item.expiresAt = now + item.ttl * 60_000;
      touched.push({ t: "touch", ns: item.namespace, key: item.key, exp: item.expiresAt });
    };
    const results = operations.map((op, i) => {
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
    });
    // A lost TTL refresh is harmless, so it is not fsynced.
    if (touched.length) this.writeLog({ seq: this.seq + 1, at: now, ops: touched }, false);
    return results;
  }

  private async maybeCompact(): Promise<void> {
    if (this.files && this.files.logBytes >= (this.options.compactAfterBytes ?? 64 * 1024 * 1024)) await this.compactNow();
  }

  /**
   * Snapshot + empty log, then the embedding cache keeps only the vectors of
   * live items, so deleted data leaves every file.
   */
  private async compactNow(): Promise<void> {
    const state = this.state!;
    this.files!.compact(state, this.seq, this.indexManifest(state.vectors));
    if (this.ownedCache) {
      const texts: string[] = [];
      for (const item of state.items.items()) for (const f of extractFieldTexts(item.value, state.pathsFor(item.index))) texts.push(f.text);
      await this.ownedCache.retainDocuments(texts);
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
    await this.exclusive(async () => {
      this.files!.setCipher(cipher);
      this.ownedCache?.setLineCipher(cipher);
      this.cipher = cipher;
      this.encryption = { ...this.encryption!, key };
      await this.compactNow();
    });
  }

  /**
   * Rewrites the snapshot from memory and empties the log. Deleted items and
   * their vectors leave the disk here. Runs by itself when the log reaches
   * `compactAfterBytes`, and on `close()`.
   */
  async compact(): Promise<void> {
    await this.ensureOpen();
    await this.exclusive(async () => {
      if (this.files) await this.compactNow();
    });
  }

  /** Deletes every item under `prefix` (whole labels) and returns how many. */
  async deleteNamespace(prefix: string[]): Promise<number> {
    validateNamespace(prefix, { forWrite: true, what: "namespace prefix" });
    const state = await this.ensureOpen();
    return this.exclusive(() => this.deleteWhere(state, prefix, () => true));
  }

  /** Deletes expired items now and returns how many. */
  async sweepExpired(): Promise<number> {
    const state = await this.ensureOpen();
    return this.exclusive(() => {
      const now = this.clock();
      return this.deleteWhere(state, [], (item) => item.expiresAt !== undefined && item.expiresAt <= now);
    });
  }

  private async deleteWhere(state: StoreState, prefix: string[], pred: (item: { expiresAt?: number }) => boolean): Promise<number> {
    const ops: LogOp[] = [];
    for (const group of state.items.groupsUnder(prefix)) {
      for (const item of group.items.values()) if (pred(item)) ops.push({ t: "del", ns: item.namespace, key: item.key });
    }
    if (ops.length === 0) return 0;
    this.writeLog({ seq: this.seq + 1, at: this.clock(), ops }, this.options.durability !== "process");
    for (const op of ops) state.applyDelete(op.ns, op.key);
    await this.maybeCompact();
    return ops.length;
  }

  /** Number of live items under `prefix` (all items by default). */
  async count(prefix: string[] = []): Promise<number> {
    validateNamespace(prefix, { what: "namespace prefix" });
    const state = await this.ensureOpen();
    return this.exclusive(() => {
      const now = this.clock();
      let n = 0;
      for (const g of state.items.groupsUnder(prefix)) for (const item of g.items.values()) if (item.expiresAt === undefined || item.expiresAt > now) n++;
      return n;
    });
  }

  /** Items, vectors, deleted labels and file sizes. */
  async stats(): Promise<StoreStats> {
    const state = await this.ensureOpen();
    return this.exclusive(() => ({
      items: state.items.size,
      vectors: state.vectors?.liveCount ?? 0,
      deletedLabels: state.vectors?.removedCount ?? 0,
      capacity: state.vectors?.capacity ?? 0,
      efSearch: state.vectors?.settings.efSearch ?? 0,
      logBytes: this.files?.logBytes ?? 0,
      files: this.files?.fileSizes() ?? {},
    }));
  }

  /**
   * Re-embeds every item with `index` (a new embedder, dims or fields) into
   * a fresh vector index, then switches to it and writes a snapshot that
   * records the new embedder. Nothing changes if embedding fails part way.
   */
  async reindex(options: ReindexOptions): Promise<void> {
    const state = await this.ensureOpen();
    await this.exclusive(async () => {
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
      this.hnswSettings = settings;
      await this.useEmbeddings(embeddings);
      state.swapVectors(rebuilt.vectors, rebuilt.assignments, fields);
      if (this.files) await this.compactNow();
    });
  }
}
