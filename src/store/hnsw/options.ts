import type { EncryptionOptions } from "./cipher.js";
import type { MemoryGetOperation, MemoryPutOperation, MemorySearchOperation } from "../operations.js";
import type { StoreIndexConfig } from "../index-config.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import type { TTLConfig } from "../ttl.js";

/** HNSW tuning. Recorded in the directory's manifest. */
export interface HnswOptions {
  /**
   * Graph degree. Fixed when the directory is created.
   * @default 16
   */
  M?: number;
  /**
   * Build-time beam width. Fixed when the directory is created.
   * @default 200
   */
  efConstruction?: number;
  /**
   * Search-time beam width (raised automatically to k when k is larger).
   * @default the value recorded in the directory, else 200 (recall@10 0.985 on embedding-like 512-d vectors at 100k; see bench:store)
   */
  efSearch?: number;
  /**
   * Slots allocated up front; the index doubles itself when full (at most
   * once per batch). A slot costs a few dozen bytes of memory until a vector
   * fills it (the vector's own memory is reserved, not touched), while a
   * doubling copies the whole index and holds the event loop for a time
   * that grows with it (~5 ms at 8k 512-d vectors on a quiet machine, up to
   * ~50 ms on a virtual machine where fresh memory is slow to touch): set it
   * to the number of vectors you expect before a bulk import.
   * @default 16384
   */
  initialCapacity?: number;
  /**
   * A search whose prefix and filter select at most this many vectors is
   * answered by an exact scan of just those, instead of a filtered HNSW walk.
   * @default 2000
   */
  exactScanThreshold?: number;
}

/** Options for {@link HNSWStore}. */
export interface HNSWStoreOptions {
  /**
   * Directory for the index, the JSON sidecar and the log. Without it the
   * store lives in memory only.
   * @default undefined
   */
  path?: string;
  /**
   * Semantic search: InMemoryStore's `IndexConfig` (`{ dims, embeddings,
   * fields }`; without `fields`, the fields the directory recorded, else
   * `["$"]`), also under PostgresStore's
   * names (`embed`, `hnsw: { m, efConstruction, ef }`). The embedder may be
   * any object with `embedDocuments`/`embedQuery`, a function
   * `(texts) => Promise<number[][]>`, or `"openai:<model>"` (see
   * {@link StoreIndexConfig}). `localMemoryIndex()` is the package's
   * default: the bundled USE-lite embedder on the `text` field, the index
   * `langgraph-memory init` records. Without `index`, searches with a
   * `query` are ranked by keywords (BM25), and a memory component (recall,
   * tools, extraction) warns once that it cannot recall by meaning unless
   * `retrieval: "keyword"` says that is intended.
   * @default undefined (keyword search only)
   */
  index?: StoreIndexConfig;
  /**
   * Time-to-live for items.
   * @default undefined (items never expire)
   */
  ttl?: TTLConfig;
  /**
   * HNSW tuning.
   * @default { M: 16, efConstruction: 200, efSearch: 200, initialCapacity: 16384, exactScanThreshold: 2000 }
   */
  hnsw?: HnswOptions;
  /**
   * How searches with a `query` rank items: cosine similarity, BM25, or a
   * fusion of both. In every mode `score` never goes up down the list:
   * vector mode gives the cosine similarity, hybrid mode the fused relevance
   * (the item's cosine capped by the score above it, so never above its own
   * cosine), keyword mode BM25 mapped to [0, 1) as `s / (1 + s)`.
   * @default "hybrid" with an index, "keyword" without
   */
  retrieval?: RetrievalMode;
  /**
   * `"fsync"`: each batch is fsynced before its promise resolves, so it
   * survives power loss. `"process"`: each batch is written to the OS before
   * its promise resolves, so it survives the process being killed, but not
   * a power cut.
   * @default "fsync"
   */
  durability?: "fsync" | "process";
  /**
   * Encryption at rest (AES-256-GCM): every file holding user data (log,
   * items, HNSW index, embedding cache) is sealed; the index exists in clear
   * only in a RAM-backed tmpfs file for the moment hnswlib writes or reads it.
   * See {@link EncryptionOptions}; rotate keys with `rekey()`.
   * @default undefined (plain files)
   */
  encryption?: EncryptionOptions;
  /**
   * Compact (rewrite the snapshot, empty the log) once the log is this big
   * (or bigger: see `compactLogRatio`). Searches and gets go on while a
   * compaction writes its files (off the event loop); writes wait for it.
   * @default 67108864 (64 MiB)
   */
  compactAfterBytes?: number;
  /**
   * Compact only once the log is also at least this fraction of the
   * snapshot's size (items + index files), so that a big store does not
   * rewrite its whole snapshot every `compactAfterBytes` (a 1M-item
   * snapshot is ~2.5 GB). The price: after a crash (no `close()`), open
   * replays up to this much log, re-inserting each logged vector. 0 means
   * `compactAfterBytes` alone decides.
   * @default 0.5
   */
  compactLogRatio?: number;
  /**
   * Keep a content-hash → vector cache in front of the embedder (persisted
   * in the directory when there is one), so no text is embedded twice.
   * @default true
   */
  embeddingCache?: boolean;
  /**
   * Open a directory that holds vectors without giving its embedder (no
   * `index`): the stored vectors and the manifest's embedder identity are
   * kept, and reads, lists, keyword searches, deletes and puts with
   * `index: false` work. A put that needs new vectors throws
   * `EmbedderRequiredError` naming the embedder the directory expects;
   * `reindex({ index })` switches to a new embedder.
   * @default false
   */
  withoutEmbedder?: boolean;
  /**
   * Overrides the embedder identity recorded in the directory.
   * @default derived from the embedder's class and model name
   */
  embedderIdentity?: string;
  /**
   * Clock in milliseconds since the epoch (tests inject one for TTL).
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Where warnings go (embedder failures, a torn log tail dropped on open).
   * @default console
   */
  logger?: Pick<Console, "warn">;
}

/** A put operation with this store's optional per-put TTL (minutes; null = never expires). */
export type HNSWPutOperation = MemoryPutOperation;

/** What {@link HNSWStore.stats} reports. */
export interface StoreStats {
  items: number;
  /** Live vectors in the HNSW index. */
  vectors: number;
  /** Labels of deleted vectors, kept for reuse. */
  deletedLabels: number;
  /** Slots allocated in the index. */
  capacity: number;
  /** The search beam width in use (restored from the directory on open). */
  efSearch: number;
  /** Bytes of log since the last compaction. */
  logBytes: number;
  /** Size of each file in the directory. */
  files: Record<string, number>;
}

/** Options for {@link HNSWStore.deleteNamespace}. */
export interface DeleteNamespaceOptions {
  /**
   * Compact at once, so that when the call resolves nothing of the deleted
   * items is left in any file. `false` defers that to the next compaction.
   * @default true
   */
  purge?: boolean;
}

/** A get with PostgresStore's per-call `refreshTtl` (overrides the store's `ttl.refreshOnRead`). */
export type HNSWGetOperation = MemoryGetOperation;

/** A search with PostgresStore's per-call `refreshTtl` (overrides the store's `ttl.refreshOnRead`). */
export type HNSWSearchOperation = MemorySearchOperation;
