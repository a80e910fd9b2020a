import type { Queryable, Tables } from "./sql.js";

/**
 * `hnsw.ef_search` for a table of `vectors` indexed vectors, when the store
 * has no `hnsw.efSearch` of its caller's. Each beam is used up to half the
 * smallest size at which it missed recall@10 >= 0.98 in bench:postgres-scale
 * (low-rank 512-d vectors, m 16, ef_construction 64): ef 100 gave 0.989 at
 * 25k and 0.9795 at 50k; ef 200 0.996 at 100k and 0.9675 at 300k; ef 300
 * 0.9895 at 300k (docs/postgres.md, "At scale"). A wider beam costs time in
 * proportion.
 */
export function fittedEfSearch(vectors: number): number {
  if (vectors <= 25_000) return 100;
  if (vectors <= 150_000) return 200;
  return 300;
}

/**
 * Pending vectors a search may have to compare exactly per unit of
 * `hnsw.ef_search`: a search compares every pending vector of its scope,
 * and its HNSW walk costs about in proportion to the beam, so this keeps the
 * exact part of a search during a burst of writes at about the same share of
 * the walk at every table size. At 10k items (ef_search 100), a bound of
 * 1,000 left searches during a burst at 2.2-2.4x raw pgvector's walk and
 * 250 at 1.3-1.5x (bench:postgres, docs/postgres.md, "A bound").
 */
const PENDING_PER_EF = 2.5;
/**
 * The bound while a bulk load has dropped the HNSW index: every search
 * compares every vector then, so the bound only paces the writers.
 */
export const BULK_MAX_PENDING = 1000;

/**
 * `hnsw.maxPendingVectors` when the caller set none: in proportion to the
 * beam the store's searches walk with (see PENDING_PER_EF), or
 * {@link BULK_MAX_PENDING} during a bulk load.
 */
export function fittedMaxPending(efSearch: number, bulk: boolean): number {
  return bulk ? BULK_MAX_PENDING : Math.max(1, Math.round(PENDING_PER_EF * efSearch));
}

/** How long a size estimate is used before it is read again, in ms. */
const SIZE_TTL_MS = 30_000;

/**
 * The indexed-vector count that {@link fittedEfSearch} reads, kept by the
 * store: estimated from the catalog as the planner estimates it, at most
 * every 30 s, in the background, never on a search's path, plus the vectors
 * this process wrote since that reading began (so that a load's own writes
 * widen the beam at once, not up to 30 s later; deletes are not taken off,
 * which errs towards the wider beam).
 */
export class VectorTableSize {
  private estimate?: number;
  private at = 0;
  private reading?: Promise<void>;
  /** Vectors written by this process since the last reading began. */
  private written = 0;

  constructor(
    private readonly tables: Tables,
    private readonly dims: number,
  ) {}

  /** The beam for the table's size as last read and grown since (the widest until it is known). */
  efSearch(): number {
    return fittedEfSearch((this.estimate ?? Number.POSITIVE_INFINITY) + this.written);
  }

  /** Counts vectors this process wrote (committed), until the next reading sees them. */
  wrote(vectors: number): void {
    if (vectors > 0) this.written += vectors;
  }

  /** The last reading is recent enough (no refresh due). */
  get fresh(): boolean {
    return this.estimate !== undefined && performance.now() - this.at < SIZE_TTL_MS;
  }

  /** Reads the size again when the last reading is older than 30 s (not awaited by searches). */
  refresh(read: (fn: (db: Queryable) => Promise<number>) => Promise<number>, force = false): Promise<void> {
    if (this.reading || (!force && this.fresh)) return this.reading ?? Promise.resolve();
    // Writes committed from here on may or may not be in the reading: they stay counted.
    const before = this.written;
    this.reading = read((db) => countVectors(db, this.tables, this.dims))
      .then((n) => {
        this.estimate = n;
        this.at = performance.now();
        this.written -= before;
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}

/**
 * The planner's own estimate: rows per page as last recorded, times the
 * table's pages now (so rows written since the last ANALYZE count). A table
 * never analyzed is assumed as dense as inline vectors of `dims` are.
 */
async function countVectors(db: Queryable, t: Tables, dims: number): Promise<number> {
  const r = await db.query<{ tuples: number; pages: number; bytes: string }>(
    `SELECT reltuples::float8 AS tuples, relpages AS pages, pg_relation_size(oid) AS bytes FROM pg_class WHERE oid = to_regclass($1)`,
    [t.vectors],
  );
  const row = r.rows[0];
  if (!row) return 0;
  const pages = Number(row.bytes) / 8192;
  const density = row.tuples > 0 && row.pages > 0 ? row.tuples / row.pages : Math.max(1, Math.floor(8160 / (dims * 4 + 64)));
  return Math.round(pages * density);
}
