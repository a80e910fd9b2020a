import type { PoolClient } from "pg";
import { buildHnswIndex, dropForBulkLoad, hnswIndexState, type HnswIndexSpec } from "./bulk-build.js";
import { rowsUpTo, type Queryable, type Tables } from "./sql.js";

/** What IndexSettler needs from its store. */
export interface IndexSettlerOptions {
  tables: Tables;
  /** Runs `fn` in a transaction of the store's (retries, named errors). */
  transaction: <T>(fn: (db: PoolClient) => Promise<T>, where: string) => Promise<T>;
  /** Background movers in this process (0: none; writers still help past `maxPending`). */
  workers: number;
  /**
   * Writers wait (and help) while more vectors than this are pending. A
   * number, or the bound as it now is (`bulk`: during a bulk load, when no
   * HNSW index is walked and every search is exact anyway).
   */
  maxPending: number | ((bulk: boolean) => number);
  logger: Pick<Console, "warn">;
  /**
   * Runs one statement outside a transaction (VACUUM cannot run in one).
   * Without it the pending table is left to autovacuum.
   */
  outsideTransaction?: (sql: string) => Promise<void>;
  /**
   * Bulk loads into an (almost) empty index: the HNSW settings, and a runner
   * of statements on one session outside a transaction. Without it every
   * vector is inserted into the index row by row (PGlite).
   */
  bulk?: HnswIndexSpec & { session: <T>(fn: (db: Queryable) => Promise<T>) => Promise<T> };
  /** How often the tables are looked at for rows and indexes other processes left, in ms (tests shorten it). */
  pollMs?: number;
}

/** Vectors moved per transaction: a fraction of a second of HNSW inserts, so locks stay short. */
const CHUNK = 100;
/** Vectors moved per transaction during a bulk load (no HNSW index to insert into). */
const BULK_CHUNK = 1000;
/**
 * A bulk load drops the HNSW index only when the indexed table holds at most
 * this many vectors: they are indexed again by the one-pass build, which
 * costs less than inserting the load's rows one by one only when the load is
 * not much smaller than what the table holds.
 */
const BULK_MAX_INDEXED = 5_000;
/**
 * Vectors moved during a bulk load after which the index is built (the load
 * goes on row by row after that). Until the build, searches compare every
 * vector exactly (about 1.2 µs each for 512 dims), so this bounds a
 * search's cost during the load.
 */
const BULK_MAX_ROWS = 50_000;
/** Quiet time (no write) after which a bulk load's index is built, in ms. */
const BULK_QUIET_MS = 1_000;
/** How often the pending table is checked for rows other processes left, in ms. */
const POLL_MS = 30_000;
/**
 * Rows moved (each leaves a dead row in the pending table) after which a burst's workers vacuum
 * it: every search scans the table, dead rows included, so during a burst they would double
 * what it reads (a vacuum of these few pages takes milliseconds). This VACUUM does not ANALYZE:
 * new statistics of the table invalidate the cached plan of every prepared statement that reads
 * it, and the walk was then planned again on each connection, on most runs for the rest of the
 * burst (88 plans in 578 searches with ANALYZE, 2 in 493 without: pg_stat_statements, 10k items,
 * a burst of 2,200 puts). VACUUM still records the table's size (`reltuples`, `relpages`).
 */
const VACUUM_EVERY = 500;

/**
 * Moves vectors from the pending table into the HNSW-indexed one, in the
 * background, on several connections at once.
 *
 * pgvector inserts a row into its HNSW graph one by one, and that insert is
 * nearly the whole cost of a put (tens of times the cost of the same row in a
 * table without the index; see docs/postgres.md, "Puts"). A put therefore writes
 * its vectors to a table without the index, in its own transaction, and is
 * acknowledged; searches compare those pending vectors exactly, so they find
 * every acknowledged write. The workers then move the rows, `CHUNK` at a
 * time, each move one transaction (delete from pending, insert into the
 * indexed table). Rows are claimed with `FOR UPDATE SKIP LOCKED`, so several
 * workers, in one process or many, never move the same row, and the HNSW
 * inserts of a batch spread over the server's cores instead of running one
 * after another in the writer's transaction.
 *
 * Writes past `maxPending` wait before they start, helping to move rows,
 * so that the exact part of a search stays small. Nothing is lost when a
 * process stops: pending rows stay searchable, and the next worker (of any
 * process) moves them.
 */
export class IndexSettler {
  private readonly running = new Set<Promise<void>>();
  /** Loops that have not yet decided to stop (a loop leaves `running` only a turn after it returns). */
  private looping = 0;
  private stopped = false;
  /** Pending rows as far as this process knows (its writes minus its moves; checked against the table before waiting). */
  private estimate = 0;
  /** Bumped by every write, so that a worker that found nothing to move looks again when a write came in meanwhile. */
  private writes = 0;
  private timer?: ReturnType<typeof setInterval>;
  /** Rows this process moved since it last vacuumed the pending table (dead rows there). */
  private movedSinceVacuum = 0;
  private vacuuming?: Promise<void>;
  /** A burst's VACUUM ran without ANALYZE since the table was last analyzed (the drain's VACUUM analyzes). */
  private analyzeOwed = false;
  /** VACUUM failed for a reason that will not go away (say, the role does not own the table): warned once. */
  private vacuumRefused = false;
  /** Whether this process looked for a bulk load to start (once: the first time writes outpace the index). */
  private bulkChecked = false;
  private bulkStart?: Promise<void>;
  /** The last poll found the index missing or invalid and nothing pending. */
  private abandonedSeen = false;
  /** The HNSW index is dropped for a bulk load: rows moved since, or undefined when not in one. */
  private bulkMoved?: number;
  private building?: Promise<void>;
  private quietTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly options: IndexSettlerOptions) {}

  /** Starts the workers (rows may be left from an earlier run) and the poll for rows other processes left. */
  start(): void {
    // One worker looks; when it finds rows, the next write (or drainTo) brings the others.
    if (this.options.workers > 0) {
      this.timer = setInterval(() => {
        this.kick(1);
        void this.lookForAbandonedLoad();
      }, this.options.pollMs ?? POLL_MS);
      this.timer.unref();
    }
    this.kick(Number.POSITIVE_INFINITY);
    // A bulk load whose process stopped before it built the index again (or a build that failed) left it missing or invalid.
    if (this.options.bulk && this.options.workers > 0) void this.ensureIndex(true);
  }

  /** Records that `written` vectors were committed to the pending table, and wakes the workers. */
  wrote(written: number): void {
    if (written <= 0) return;
    this.estimate += written;
    this.writes++;
    if (!this.bulkChecked && this.estimate > this.maxPending) this.bulkStart = this.startBulkLoad();
    this.kick(written);
  }

  /** Called before a write: when too many vectors are pending, waits until they are not, moving rows meanwhile. */
  async beforeWrite(): Promise<void> {
    if (this.estimate <= this.maxPending) return;
    await this.bulkStart;
    await this.drainTo(this.maxPending);
  }

  /** The bound writers wait on now (see IndexSettlerOptions.maxPending). */
  private get maxPending(): number {
    const bound = this.options.maxPending;
    return typeof bound === "number" ? bound : bound(this.bulkMoved !== undefined);
  }

  /**
   * Writes outpace the index. When it holds few vectors (a first import, a
   * migration into new tables), drops it: the rows are moved at the rate of
   * a table without the index, and the index is built again in one pass
   * when the load ends (quiet, `flushIndex()`) or has moved
   * `BULK_MAX_ROWS`. pgvector builds an HNSW graph over rows already in the
   * table several times faster than it inserts them one by one
   * (docs/postgres.md, "Puts"). Searches meanwhile compare the vectors exactly.
   */
  private async startBulkLoad(): Promise<void> {
    this.bulkChecked = true;
    const bulk = this.options.bulk;
    // Without workers of its own, nothing here would build the index when the load ends.
    if (!bulk || this.options.workers === 0) return;
    try {
      await bulk.session(async (db) => {
        if ((await rowsUpTo(db, this.options.tables.vectors, BULK_MAX_INDEXED + 1)) > BULK_MAX_INDEXED) return;
        if ((await hnswIndexState(db, this.options.tables)) === "valid") await dropForBulkLoad(db, this.options.tables);
        this.bulkMoved = 0;
      });
    } catch (err) {
      this.options.logger.warn(`langgraph-hnsw-memory: ${this.options.tables.items}: a bulk load could not drop the HNSW index (rows are indexed one by one): ${String((err as Error)?.message ?? err)}`);
    }
  }

  /**
   * Builds the HNSW index when it is missing or invalid (a bulk load's, or
   * one a stopped process left), in one pass; the bulk load, if any, ends.
   * `always`: look even when this process started no bulk load.
   */
  ensureIndex(always = false): Promise<void> {
    const bulk = this.options.bulk;
    if (!bulk || (!always && this.bulkMoved === undefined)) return this.building ?? Promise.resolve();
    this.building ??= (async () => {
      try {
        await bulk.session((db) => buildHnswIndex(db, this.options.tables, bulk));
        this.bulkMoved = undefined;
      } catch (err) {
        // Searches stay exact meanwhile; the next flushIndex(), quiet spell or open builds it.
        if (!this.stopped) this.options.logger.warn(`langgraph-hnsw-memory: building the HNSW index of ${this.options.tables.vectors} failed: ${String((err as Error)?.message ?? err)}`);
      } finally {
        this.building = undefined;
      }
    })();
    return this.building;
  }

  /** Moves rows until at most `limit` are pending (0: until the table is empty). */
  async drainTo(limit: number): Promise<void> {
    for (;;) {
      const n = await this.options.transaction((db) => rowsUpTo(db, this.options.tables.pending, limit + 1), "index settle");
      this.estimate = n;
      if (n <= limit) break;
      const moved = await this.options.transaction((db) => moveChunk(db, this.options.tables, this.chunk), "index settle");
      this.moved(moved);
      // Every pending row is being moved by another worker: let it commit.
      if (moved === 0) await new Promise((r) => setTimeout(r, 5));
    }
    // Drained (flushIndex): searches after it read a clean table (rows moved during a vacuum under way: another),
    // with statistics of the table as it now is (the writes are over: one plan invalidation).
    if (limit === 0) {
      await this.ensureIndex(true);
      await this.vacuuming;
      await this.vacuum(true);
    }
  }

  /** Rows per move: more without an index to insert them into. */
  private get chunk(): number {
    return this.bulkMoved === undefined ? CHUNK : BULK_CHUNK;
  }

  private moved(rows: number): void {
    if (this.bulkMoved !== undefined) {
      this.bulkMoved += rows;
      if (this.bulkMoved >= BULK_MAX_ROWS) void this.ensureIndex();
    }
    this.estimate = Math.max(0, this.estimate - rows);
    this.movedSinceVacuum += rows;
    if (this.movedSinceVacuum >= VACUUM_EVERY) void this.vacuum();
  }

  /**
   * VACUUMs the pending table when rows were moved out of it since the last
   * time. Each move leaves a dead row there, and until autovacuum comes (a
   * minute or more) every search that reads the table reads them: 20,000
   * moved rows are 52 MB that a search's scan of the drained table read
   * page by page (1.95x the index walk alone at 20k items). A vacuum of the
   * small live part takes milliseconds, and it blocks neither reads nor writes.
   * `analyze`: also ANALYZE (only once the writes are over: see VACUUM_EVERY).
   */
  vacuum(analyze = false): Promise<void> {
    const run = this.options.outsideTransaction;
    if (!run || this.vacuumRefused || (this.movedSinceVacuum === 0 && !(analyze && this.analyzeOwed))) return this.vacuuming ?? Promise.resolve();
    // Rows moved (or an ANALYZE asked for) since the VACUUM under way began: one more after it, or the
    // drained table's last dead rows would wait for autovacuum (a bulk load's 1,000-row moves made the
    // drain's VACUUM fall inside the one before it).
    if (this.vacuuming) return this.vacuuming.then(() => (this.stopped ? undefined : this.vacuum(analyze)));
    this.vacuuming = (async () => {
      try {
        this.movedSinceVacuum = 0;
        this.analyzeOwed = !analyze;
        await run(`VACUUM${analyze ? " (ANALYZE)" : ""} ${this.options.tables.pending}`);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === "42501") this.vacuumRefused = true; // not the owner: autovacuum's job then
        if (!this.stopped) this.options.logger.warn(`langgraph-hnsw-memory: VACUUM of ${this.options.tables.pending} failed (autovacuum will clean it): ${String((err as Error)?.message ?? err)}`);
      } finally {
        this.vacuuming = undefined;
      }
    })();
    return this.vacuuming;
  }

  /** Stops the workers after the move each has under way (pending rows stay for the next run), and builds the index of a bulk load. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    await Promise.allSettled([...this.running, this.vacuuming]);
    // A bulk load not yet built is built now (other processes' searches would stay exact until
    // the next open), and a build under way is waited for (cancelled, it would leave an invalid index).
    await this.ensureIndex();
  }

  /**
   * Builds the index when it has been missing or invalid, with nothing
   * pending, at two polls in a row: another process's bulk load that stopped
   * (killed) before building it. A load under way keeps rows pending and is
   * left to its process.
   */
  private async lookForAbandonedLoad(): Promise<void> {
    const bulk = this.options.bulk;
    if (!bulk || this.bulkMoved !== undefined || this.building) return;
    try {
      const idle = await this.options.transaction(
        async (db) => (await hnswIndexState(db, this.options.tables)) !== "valid" && (await rowsUpTo(db, this.options.tables.pending, 1)) === 0,
        "index check",
      );
      const seenBefore = this.abandonedSeen;
      this.abandonedSeen = idle;
      if (idle && seenBefore) await this.ensureIndex(true);
    } catch {
      // The next poll looks again.
    }
  }

  /** Builds a bulk load's index once no write came for `BULK_QUIET_MS`. */
  private buildWhenQuiet(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    const writes = this.writes;
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.stopped) return;
      if (writes === this.writes) void this.ensureIndex();
      else if (this.running.size === 0) this.buildWhenQuiet();
    }, BULK_QUIET_MS);
    this.quietTimer.unref();
  }

  /** Starts up to `workers` loops, no more than the rows to move need. */
  private kick(rows: number): void {
    const want = Math.min(this.options.workers, Math.ceil(rows / CHUNK));
    while (!this.stopped && this.running.size < want) {
      const loop: Promise<void> = this.loop().finally(() => this.running.delete(loop));
      this.running.add(loop);
    }
  }

  private async loop(): Promise<void> {
    this.looping++;
    try {
      while (!this.stopped) {
        const writes = this.writes;
        const moved = await this.options.transaction((db) => moveChunk(db, this.options.tables, this.chunk), "index settle");
        this.moved(moved);
        if (moved === 0 && writes === this.writes) {
          // The table is drained: the last loop to see it vacuums its dead rows now, not when
          // autovacuum comes. Counted here, not by `running`: two loops that found it drained in the
          // same turn both still counted as running, and neither vacuumed.
          if (--this.looping === 0) void this.vacuum();
          if (this.bulkMoved !== undefined) this.buildWhenQuiet();
          return;
        }
      }
      this.looping--;
    } catch (err) {
      this.looping--;
      // The rows stay pending (and searchable); the next write or poll starts a worker again.
      if (!this.stopped) this.options.logger.warn(`langgraph-hnsw-memory: ${this.options.tables.items}: moving new vectors into the HNSW index failed: ${String((err as Error)?.message ?? err)}`);
    }
  }
}

/**
 * One move: up to `limit` pending vectors claimed, deleted from the pending
 * table and inserted into the indexed one, in the caller's transaction.
 *
 * The claim reads the pending table (small: bounded by `maxPending`) and
 * locks each row (`FOR UPDATE`), then locks each row's item by a primary-key
 * probe (`FOR KEY SHARE`, which the foreign key's check takes anyway),
 * skipping rows either of which another transaction holds. Driving the
 * claim from the items instead (the planner's choice for a plain join)
 * scanned the items table from its start for every chunk. Skipping a locked
 * item keeps clear of a delete of that item: it holds the item and waits
 * for its pending rows (the cascade), while the insert here would wait for
 * the item. A put of the same item (a key-preserving update, which does not
 * block `KEY SHARE`) waits for the move instead, then deletes the moved row
 * (see `removeVectors`).
 */
export async function moveChunk(db: Queryable, t: Tables, limit: number): Promise<number> {
  const r = await db.query(
    `WITH claimed AS (
       SELECT p.ns, p.key, p.field FROM ${t.pending} p LIMIT $1 FOR UPDATE SKIP LOCKED
     ), held AS (
       SELECT DISTINCT h.ns, h.key FROM claimed c
       CROSS JOIN LATERAL (SELECT i.ns, i.key FROM ${t.items} i WHERE i.ns = c.ns AND i.key = c.key FOR KEY SHARE SKIP LOCKED) h
     ), moved AS (
       DELETE FROM ${t.pending} p USING claimed c JOIN held h ON h.ns = c.ns AND h.key = c.key
       WHERE p.ns = c.ns AND p.key = c.key AND p.field = c.field
       RETURNING p.ns, p.key, p.field, p.embedding
     )
     INSERT INTO ${t.vectors} (ns, key, field, embedding) SELECT * FROM moved
     ON CONFLICT (ns, key, field) DO UPDATE SET embedding = EXCLUDED.embedding`,
    [limit],
  );
  return r.rowCount ?? 0;
}
