import type { Embeddings } from "@langchain/core/embeddings";
import {
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
} from "@langchain/langgraph-checkpoint";
import type { Pool, PoolClient } from "pg";
import { embedderIdentity } from "../../embeddings/identity.js";
import { StoreClosedError } from "../../errors.js";
import { prepareBatch } from "../hnsw/prepare-batch.js";
import { checkCondition, conditionOf } from "../conditional-put.js";
import { lockItemKey } from "./conditional.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import { validateNamespace } from "../namespace.js";
import { bookkeepingMirrors } from "../hidden-namespaces.js";
import { startSweeper } from "../ttl.js";
import { MemoryStoreBase } from "../memory-store-base.js";
import type { MemoryGetOperation, MemorySearchOperation } from "../operations.js";
import type { PostgresMemoryStoreOptions, PostgresStoreStats } from "./options.js";
import { DEFAULT_CONNECTION_RETRY_MS, DEFAULT_STATEMENT_TIMEOUT_MS, inTransaction, openPool, type StorePool, type TransactionOptions } from "./connection.js";
import { setupSchema, type IndexManifest, type SetupResult } from "./schema.js";
import { PAGE_COLUMNS, runSearch, toSearchItem, type ItemRow } from "./search.js";
import { liveSql, nsPath, Params, scopeSql, tables, type Queryable, type Tables } from "./sql.js";
import { writeRun, type VectorTarget, type WriteOp } from "./write.js";
import { lockItemsInOrder, needsOrderedLocks } from "./write-order.js";
import { IndexSettler } from "./index-settler.js";
import { listNamespaces } from "./list-namespaces.js";
import { PlanCache } from "./plan-cache.js";
import { KeywordDocuments } from "./keyword-documents.js";
import { PreparedStatements } from "./prepared.js";
import { fittedMaxPending, VectorTableSize } from "./fitted-ef.js";
import { checkPostgresOptions } from "./check-options.js";
import { exportRows, importRows } from "./transfer.js";
import { validateValue } from "../validate-value.js";
import { validateKey } from "../text-rules.js";
import type { EmbedderInfo, MemoryEntry } from "../../migrate/entry.js";

/**
 * A LangGraph `BaseStore` on PostgreSQL (+ pgvector for semantic search), for
 * memory shared by several processes or machines. Same contract, errors and
 * ranking as `HNSWStore`; not to be confused with LangChain's
 * `PGVectorStore` (a vector store for documents).
 *
 * @example
 * ```ts
 * import { PostgresMemoryStore } from "langgraph-hnsw-memory/postgres";
 * const store = new PostgresMemoryStore({
 *   connectionString: process.env.DATABASE_URL,
 *   index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings() },
 * });
 * await store.setup(); // migrations; also run lazily by the first operation
 * const graph = builder.compile({ checkpointer, store });
 * ```
 *
 * **Order inside a batch.** A batch runs in one transaction, its operations
 * in order (a get after a put sees the put). Its documents are embedded in
 * one call before the transaction starts; invalid input or an embedder
 * failure throws before anything is written.
 *
 * **Many processes.** Writes are upserts (`ON CONFLICT`); a batch aborted by
 * a deadlock or serialization failure is retried (`maxRetries`).
 */
export class PostgresMemoryStore extends MemoryStoreBase {
  private readonly options: PostgresMemoryStoreOptions;
  private readonly tables: Tables;
  private readonly clock: () => number;
  private readonly logger: Pick<Console, "warn">;
  private readonly indexConfig?: PostgresMemoryStoreOptions["index"];
  private readonly fields: string[] | null;
  private pool?: Pool;
  private storePool?: StorePool;
  private setupDone?: SetupResult;
  private opening?: Promise<void>;
  private closed = false;
  private stopSweeper: () => void = () => {};
  /** Small/large decisions of recent searches (cleared by this store's writes). */
  private readonly plans = new PlanCache();
  /** Small selections' keyword documents (see KeywordDocuments); dropped by every delete, so no deleted text stays in memory. */
  private readonly keywordDocuments = new KeywordDocuments();
  /** Named prepared statements of the searches. */
  private readonly statements: PreparedStatements;
  /** Moves pending vectors into the HNSW index (made by setup for a store with an index, also without deferred indexing). */
  private settler?: IndexSettler;
  private pglite = false;
  /** The indexed table's size, for the default ef_search. */
  private readonly tableSize?: VectorTableSize;

  constructor(options: PostgresMemoryStoreOptions) {
    super();
    checkPostgresOptions(options);
    const schema = options.schema ?? "public";
    const prefix = options.tablePrefix ?? "memory_";
    this.options = options;
    this.tables = tables(schema, prefix);
    this.clock = options.clock ?? Date.now;
    this.logger = options.logger ?? console;
    this.indexConfig = options.index;
    this.fields = options.index ? (options.index.fields ?? ["$"]) : null;
    this.statements = new PreparedStatements(options.preparedStatements !== false);
    if (options.index) this.tableSize = new VectorTableSize(this.tables, options.index.dims);
  }

  /** The recorded embedder identity (what the meta table must hold). */
  private manifest(): IndexManifest | null {
    const c = this.indexConfig;
    if (!c) return null;
    return { space: "cosine", dims: c.dims, embedder: this.options.embedderIdentity ?? embedderIdentity(c.embeddings), fields: c.fields ?? ["$"] };
  }

  /**
   * Connects, applies the schema migrations and checks the recorded embedder
   * (IncompatibleStoreError on a mismatch). Idempotent; every operation calls it.
   */
  async setup(): Promise<void> {
    if (this.closed) throw new StoreClosedError(`PostgresMemoryStore ${this.tables.items} is closed`);
    if (this.setupDone) return;
    this.opening ??= this.doSetup().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  override async start(): Promise<void> {
    await this.setup();
  }

  override async stop(): Promise<void> {
    await this.close();
  }

  private async doSetup(): Promise<void> {
    if (!this.storePool) {
      this.storePool = await openPool(this.options, this.logger);
      this.pool = this.storePool.pool;
      if (await isPglite(this.pool, this.txOptions("setup"))) {
        this.pglite = true;
        // One session behind every connection: each connection's first PREPARE of a shape after another's fails.
        this.statements.disable();
        if (!this.options.pool) (this.pool as unknown as { options: { max: number } }).options.max = 1;
      }
    }
    this.setupDone = await inTransaction(this.pool!, this.txOptions("setup"), (db) =>
      setupSchema(db, this.tables, {
        index: this.manifest(),
        m: this.options.hnsw?.m ?? DEFAULT_M,
        efConstruction: this.options.hnsw?.efConstruction ?? DEFAULT_EF_CONSTRUCTION,
      }),
    );
    // Also without deferred indexing here: other processes, or an earlier run, may have left pending vectors.
    if (this.indexConfig) {
      this.settler = new IndexSettler({
        tables: this.tables,
        transaction: (fn, where) => {
          // A write waiting on the bound when close() ended the pool.
          if (!this.pool) throw new StoreClosedError(`PostgresMemoryStore ${this.tables.items} is closed`);
          return inTransaction(this.pool, this.txOptions(where), fn);
        },
        workers: this.options.hnsw?.indexWorkers ?? (this.pglite ? 1 : DEFAULT_INDEX_WORKERS),
        maxPending: (bulk) => this.options.hnsw?.maxPendingVectors ?? fittedMaxPending(this.efSearch, bulk),
        logger: this.logger,
        outsideTransaction: async (sql) => {
          if (!this.pool) return;
          await inTransaction(this.pool, { ...this.txOptions("vacuum"), mode: "read" }, (db) => db.query(sql));
        },
        // PGlite is one session: a concurrent index build would wait for itself.
        bulk: this.pglite
          ? undefined
          : {
              m: this.options.hnsw?.m ?? DEFAULT_M,
              efConstruction: this.options.hnsw?.efConstruction ?? DEFAULT_EF_CONSTRUCTION,
              dims: this.indexConfig.dims,
              session: (fn) => {
                if (!this.pool) throw new StoreClosedError(`PostgresMemoryStore ${this.tables.items} is closed`);
                return inTransaction(this.pool, { ...this.txOptions("index build"), mode: "read" }, fn);
              },
            },
      });
      // Before the workers start (a PGlite socket server closes a second connection).
      await this.tableSize?.refresh((fn) => this.transaction(fn, "read", "read"), true).catch(() => undefined);
      this.settler.start();
    }
    this.stopSweeper = startSweeper(this.options.ttl ? (this.options.ttl.sweepIntervalMinutes ?? 60) : 0, () => this.sweepExpired(), (err) =>
      this.logger.warn(`langgraph-hnsw-memory: TTL sweep failed: ${String(err)}`),
    );
  }

  /** Stops the sweeper and the index workers (building the index of a bulk load first), and ends the pool the store created (a caller's pool is left open). */
  async close(): Promise<void> {
    if (this.opening) await this.opening.catch(() => undefined);
    this.closed = true;
    this.keywordDocuments.clear();
    this.stopSweeper();
    await this.settler?.stop();
    this.settler = undefined;
    this.setupDone = undefined;
    const own = this.storePool;
    this.storePool = undefined;
    this.pool = undefined;
    await own?.release();
  }

  private txOptions(where: string) {
    return {
      maxRetries: this.options.maxRetries ?? 5,
      connectionRetryMs: this.options.connectionRetryMs ?? DEFAULT_CONNECTION_RETRY_MS,
      statementTimeoutMs: this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      logger: this.logger,
      where: `PostgresMemoryStore ${this.tables.items} ${where}`,
    };
  }

  /**
   * Runs `fn` in a transaction (see `inTransaction`): deadlocks and
   * serialization failures retried, lost connections retried on a new one
   * before COMMIT, named errors for the rest.
   */
  private async transaction<T>(fn: (db: PoolClient) => Promise<T>, where = "batch", mode: "read" | "write" = "write"): Promise<T> {
    if (this.closed || !this.setupDone) await this.setup();
    const key = `${where} ${mode}`;
    let options = this.txByKind.get(key);
    if (!options) this.txByKind.set(key, (options = { ...this.txOptions(where), mode }));
    return inTransaction(this.pool!, options, fn);
  }

  /** The options of each kind of transaction (made once: every read would otherwise build them). */
  private readonly txByKind = new Map<string, TransactionOptions>();

  /** A Queryable whose every query is retried on a new connection when the old one is lost. */
  private readonly reads: Queryable = { query: (text, params) => this.transaction((db) => db.query(text, params), "read", "read") };

  /** Where this store's writes put new vectors. */
  private get vectorTarget(): VectorTarget {
    if (!this.indexConfig) return null;
    return this.options.hnsw?.deferredIndexing === false ? "indexed" : "pending";
  }

  /**
   * True when searches with a `query` can only rank by keywords because the
   * store has no `index` and no `retrieval` was chosen. Memory components
   * warn about it once; `retrieval: "keyword"` says it is intended.
   */
  get keywordOnlyByDefault(): boolean {
    return !this.indexConfig && this.options.retrieval === undefined;
  }

  /** Session-level walk settings on the store's own connections (see `sessionSettings`). */
  private get walkMode(): "session" | "local" {
    return (this.options.sessionSettings ?? (!this.options.pool && !this.pglite)) ? "session" : "local";
  }

  /** `hnsw.ef_search` of an index walk: the caller's, or fitted to the table's size. */
  private get efSearch(): number {
    return this.options.hnsw?.efSearch ?? this.tableSize?.efSearch() ?? DEFAULT_EF_SEARCH;
  }

  /** Before a delete: the counts it may shrink, and every kept keyword document (no deleted item's text stays in memory). */
  private forgetDeleted(): void {
    this.plans.clear();
    this.keywordDocuments.clear();
  }

  /** After a committed write of `vectors` vectors: the workers move them if they are pending, and the beam counts them. */
  private wroteVectors(vectors: number): void {
    this.settler?.wrote(this.vectorTarget === "pending" ? vectors : 0);
    this.tableSize?.wrote(vectors);
  }

  /** Selections of at most this many items are ranked exactly (`hnsw.exactScanThreshold`). */
  private get exactScanThreshold(): number {
    return this.options.hnsw?.exactScanThreshold ?? DEFAULT_EXACT_SCAN_THRESHOLD;
  }

  private get retrieval(): RetrievalMode {
    return this.options.retrieval ?? (this.indexConfig ? "hybrid" : "keyword");
  }

  /** Puts with `ifValue` are compare-and-set across processes (an advisory lock on the key, in the batch's transaction). */
  readonly conditionalPuts = true;

  // ---- get/search/put/delete: MemoryStoreBase validates them and routes them through batch() ----

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    // Checked here first: a set-up store's batch (every search) skips an await.
    if (this.closed || !this.setupDone) await this.setup();
    const now = this.clock();
    const prepared = await prepareBatch(operations, {
      state: { pathsFor: (index) => (index === false ? [] : (index ?? this.fields ?? [])) },
      embeddings: this.indexConfig?.embeddings as Embeddings | undefined,
      dims: this.indexConfig?.dims,
      retrieval: this.retrieval,
      ttl: this.options.ttl,
      now,
      logger: this.logger,
      queryAdapter: this.indexConfig?.queryAdapter,
    });
    const writes = operations.some((op) => "value" in op);
    // Searches walk with a beam fitted to the table's size, and writes wait on a bound fitted to that beam.
    if (this.tableSize && !this.tableSize.fresh) {
      this.tableSize.refresh((fn) => this.transaction(fn, "read", "read")).catch((err) => this.logger.warn(`langgraph-hnsw-memory: reading the size of ${this.tables.vectors} failed: ${String((err as Error)?.message ?? err)}`));
    }
    if (writes) {
      // A put may grow a small selection past its count (see PlanCache.forgetSmall); a large one's count only picks its plan.
      if (operations.some((op) => "value" in op && op.value === null)) this.forgetDeleted();
      else this.plans.forgetSmall(this.exactScanThreshold);
    }
    if (writes) await this.settler?.beforeWrite();
    let vectorsWritten = 0;
    // Reads need no transaction (each statement sees its own snapshot under READ COMMITTED either way).
    const out = await this.transaction(async (db) => {
      vectorsWritten = 0;
      const results: unknown[] = [];
      const touched: [string, string][] = [];
      const storeRefresh = this.options.ttl?.refreshOnRead !== false;
      let pending: WriteOp[] = [];
      const flush = async () => {
        if (pending.length) vectorsWritten += await writeRun(db, this.tables, pending, now, this.fields, this.vectorTarget);
        pending = [];
      };
      // Every item this batch writes locked first, in the order every writer uses (see write-order.ts).
      if (writes && needsOrderedLocks(operations)) {
        await lockItemsInOrder(db, this.tables, operations.filter((op) => "value" in op) as { namespace: string[]; key: string }[]);
      }
      for (let i = 0; i < operations.length; i++) {
        const op = operations[i];
        if ("namespacePrefix" in op) {
          await flush();
          const s = op as MemorySearchOperation;
          const { results: found, ids } = await runSearch(
            { namespacePrefix: s.namespacePrefix, filter: s.filter, limit: s.limit ?? 10, offset: s.offset ?? 0, query: s.query, queryVector: prepared.queryVectors.get(i) },
            {
              db,
              tables: this.tables,
              now,
              retrieval: s.retrieval ?? this.retrieval,
              hasVectors: !!this.indexConfig,
              fields: this.fields,
              efSearch: this.efSearch,
              efExplicit: this.options.hnsw?.efSearch !== undefined,
              walkMode: this.walkMode,
              exactScanThreshold: this.exactScanThreshold,
              iterativeScan: iterativeScanSupported(this.setupDone?.pgvector),
              inTransaction: writes,
              plans: this.plans,
              keywordDocuments: this.keywordDocuments,
              statements: this.statements,
            },
          );
          if (s.refreshTtl ?? storeRefresh) touched.push(...ids);
          results.push(found);
        } else if ("value" in op) {
          const put = prepared.puts.get(i);
          const p = op as PutOperation;
          const cond = conditionOf(op);
          if (cond) {
            // Compare-and-set: lock the key, then read what is committed; a mismatch rolls the whole batch back.
            await flush();
            await lockItemKey(db, this.tables, p);
            checkCondition(cond, (await this.getRow(db, p, now))?.value, p);
          }
          pending.push(put ? { kind: "put", put } : { kind: "delete", namespace: p.namespace, key: p.key });
          results.push(undefined);
        } else if ("key" in op) {
          await flush();
          const g = op as MemoryGetOperation;
          const item = await this.getRow(db, g, now);
          if (item && (g.refreshTtl ?? storeRefresh)) touched.push([nsPath(item.namespace), item.key]);
          results.push(item);
        } else {
          await flush();
          results.push(await listNamespaces(db, this.tables, op as ListNamespacesOperation, now));
        }
      }
      await flush();
      await this.refresh(db, touched, now);
      return results as OperationResults<Op>;
    }, writes ? "batch" : "read", writes ? "write" : "read");
    this.wroteVectors(vectorsWritten);
    return out;
  }

  private async getRow(db: Queryable, op: GetOperation, now: number): Promise<Item | null> {
    const p = new Params();
    const r = await db.query<ItemRow>(
      `SELECT ${PAGE_COLUMNS} FROM ${this.tables.items} i WHERE i.ns = ${p.add(nsPath(op.namespace))} AND i.key = ${p.add(op.key)} AND ${liveSql("i", now, p)}`,
      p.values,
    );
    return r.rows[0] ? toSearchItem(r.rows[0]) : null;
  }

  /** Restarts the TTL of items a get or search returned (refreshOnRead, or the operation's refreshTtl). */
  private async refresh(db: Queryable, ids: [string, string][], now: number): Promise<void> {
    if (ids.length === 0) return;
    await db.query(
      `UPDATE ${this.tables.items} SET expires_at = $3 + (ttl_minutes * 60000)::bigint
       WHERE ttl_minutes IS NOT NULL AND (ns, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [ids.map((x) => x[0]), ids.map((x) => x[1]), now],
    );
  }

  // ---- Beyond the BaseStore contract ----

  /**
   * Deletes every item under `prefix` (whole labels) and returns how many,
   * with the prefix's bookkeeping (kept versions and cursors, not counted),
   * in one transaction. PostgreSQL frees the rows' space at its next VACUUM.
   */
  async deleteNamespace(prefix: string[]): Promise<number> {
    validateNamespace(prefix, { forWrite: true, what: "namespace prefix" });
    this.forgetDeleted();
    return this.transaction(async (db) => {
      for (const mirror of bookkeepingMirrors(prefix)) {
        const m = new Params();
        await db.query(`DELETE FROM ${this.tables.items} i WHERE ${scopeSql("i.ns", mirror, m)}`, m.values);
      }
      const p = new Params();
      const r = await db.query(`DELETE FROM ${this.tables.items} i WHERE ${scopeSql("i.ns", prefix, p)}`, p.values);
      return r.rowCount ?? 0;
    });
  }

  /** Deletes expired items now and returns how many. */
  async sweepExpired(): Promise<number> {
    this.forgetDeleted();
    return this.transaction(async (db) => {
      const r = await db.query(`DELETE FROM ${this.tables.items} WHERE expires_at IS NOT NULL AND expires_at <= $1`, [this.clock()]);
      return r.rowCount ?? 0;
    });
  }

  /** Number of live items under `prefix` (all items by default). */
  async count(prefix: string[] = []): Promise<number> {
    validateNamespace(prefix, { what: "namespace prefix" });
    const p = new Params();
    const r = await this.reads.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.tables.items} i WHERE ${scopeSql("i.ns", prefix, p)} AND ${liveSql("i", this.clock(), p)}`,
      p.values,
    );
    return Number(r.rows[0].n);
  }

  /** Items, vectors, schema version, embedder and table sizes. */
  async stats(): Promise<PostgresStoreStats> {
    await this.setup();
    const t = this.tables;
    // One statement, one snapshot: a vector moved from the pending table to the indexed one between
    // two counts would be counted twice.
    // (The vector tables exist only in a store with an index.)
    const vectorCounts = this.indexConfig ? `, (SELECT count(*) FROM ${t.vectors}) AS vectors, (SELECT count(*) FROM ${t.pending}) AS pending` : "";
    const counts = (
      await this.reads.query<{ items: string; vectors?: string; pending?: string }>(`SELECT (SELECT count(*) FROM ${t.items}) AS items${vectorCounts}`)
    ).rows[0];
    const items = Number(counts.items);
    const pendingVectors = this.indexConfig ? Number(counts.pending) : 0;
    const vectors = this.indexConfig ? Number(counts.vectors) + pendingVectors : 0;
    const tableBytes: Record<string, number> = {};
    for (const name of Object.values(t.raw)) {
      const r = await this.reads.query<{ b: string | null }>(`SELECT pg_total_relation_size(to_regclass($1)) AS b`, [`"${t.schema}"."${name}"`]);
      if (r.rows[0].b !== null) tableBytes[name] = Number(r.rows[0].b);
    }
    const m = this.manifest();
    return { items, vectors, pendingVectors, schemaVersion: this.setupDone!.schemaVersion, pgvector: this.setupDone!.pgvector, embedder: m?.embedder, dims: m?.dims, tableBytes };
  }

  // ---- Migration (see src/migrate) ----

  /** The embedder recorded for this store's vectors, or null without an index. */
  async describeIndex(): Promise<EmbedderInfo | null> {
    const m = this.manifest();
    return m ? { identity: m.embedder, dims: m.dims, fields: m.fields } : null;
  }

  /** Every item (expired ones too) with timestamps, TTL and, when asked, vectors; in pages. */
  async *exportEntries(options: { batchSize?: number; vectors?: boolean } = {}): AsyncIterable<MemoryEntry[]> {
    await this.setup();
    yield* exportRows(this.reads, this.tables, options.batchSize ?? 500, !!this.indexConfig && options.vectors !== false);
  }

  /** Upserts entries as they are (one transaction); entries without vectors are embedded here. */
  async importEntries(entries: MemoryEntry[]): Promise<void> {
    for (const e of entries) {
      validateNamespace(e.namespace, { forWrite: true });
      validateKey(e.key, `import ${JSON.stringify(e.namespace)}`);
      validateValue(e.value, `import ${JSON.stringify(e.namespace)}/${e.key}`);
    }
    const target = this.vectorTarget;
    const index = this.indexConfig && target ? { embeddings: this.indexConfig.embeddings, dims: this.indexConfig.dims, target } : undefined;
    this.plans.clear();
    await this.setup();
    await this.settler?.beforeWrite();
    this.wroteVectors(await this.transaction((db) => importRows(db, this.tables, entries, index, this.fields, this.clock())));
  }

  /**
   * Moves every pending vector into the HNSW index now, with the background
   * workers (see `hnsw.deferredIndexing`), and resolves when none is left.
   * Searches never need it (they compare pending vectors exactly); it is for
   * benchmarks, and for a bulk load that should end fully indexed (a bulk
   * load into an almost empty store builds its index here, in one pass).
   */
  async flushIndex(): Promise<void> {
    await this.setup();
    await this.settler?.drainTo(0);
  }

  /** The pool in use (after setup), for callers that share it. */
  get connectionPool(): Pool | undefined {
    return this.pool;
  }
}

/**
 * PGlite (PostgreSQL in WebAssembly, served by @electric-sql/pglite-socket)
 * is one session that runs one query at a time, and its socket server
 * closes connections beyond its `maxConnections` (default 1) at once, which
 * `pg` reports as "Connection terminated unexpectedly". More connections
 * buy nothing there, so the store's own pool uses one. All connections
 * share that session's prepared statements, which `pg` tracks per
 * connection, so the store prepares none there.
 */
async function isPglite(pool: Pool, options: Parameters<typeof inTransaction>[1]): Promise<boolean> {
  const r = await inTransaction(pool, { ...options, mode: "read" }, (db) => db.query<{ v: string }>("SELECT version() AS v"));
  return /PGlite/i.test(r.rows[0]?.v ?? "");
}

/** HNSW defaults (see PostgresHnswOptions; efSearch without an index is never used). */
const DEFAULT_M = 16;
const DEFAULT_EF_CONSTRUCTION = 64;
const DEFAULT_EF_SEARCH = 300;
const DEFAULT_EXACT_SCAN_THRESHOLD = 2000;
/** Deferred indexing defaults (see PostgresHnswOptions). */
const DEFAULT_INDEX_WORKERS = 2;

/** pgvector 0.8 added iterative index scans. */
function iterativeScanSupported(version: string | undefined): boolean {
  if (!version) return false;
  const [major, minor] = version.split(".").map(Number);
  return major > 0 || minor >= 8;
}
