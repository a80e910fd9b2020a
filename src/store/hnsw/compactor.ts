import type { CachedEmbeddings } from "../../embeddings/cached-embeddings.js";
import { extractFieldTexts } from "../fields.js";
import type { WriteHold } from "./batch-lock.js";
import type { IndexManifest } from "./snapshot.js";
import type { LoadedStore, StoreFiles } from "./store-files.js";
import type { StoreState } from "./store-state.js";
import { TimeSlicer } from "../../time-slice.js";
import { APPLY_SLICE_MS } from "./settings.js";
import type { VectorIndex } from "./vector-index.js";
import type { LogOp } from "./write-ahead-log.js";

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

/** What a {@link Compactor} reads from the store that owns it. */
export interface CompactorHost {
  /** The open directory's files (undefined for an in-memory or closed store). */
  files(): StoreFiles | undefined;
  /** The open state. */
  state(): StoreState | undefined;
  /** The index record for the snapshot. */
  manifest(vectors?: VectorIndex): IndexManifest | null;
  /** The embedding cache the store created, pruned after each compaction. */
  ownedCache(): CachedEmbeddings | undefined;
  clock: () => number;
  logger: Pick<Console, "warn">;
  compactAfterBytes?: number;
  compactLogRatio?: number;
}

/**
 * The store's log sequence, TTL refresh logging and compaction (snapshot +
 * empty log). Internal to HNSWStore, which owns one and calls it under its
 * batch lock.
 */
export class Compactor {
  /** Sequence number of the last record logged (or loaded). */
  seq = 0;
  /** A compaction failed (disk full…) after its writes were logged: retried after the next write and on close. */
  owed = false;
  /** A compaction is writing the snapshot: TTL refreshes by reads wait here, then go to the new log. */
  private compacting = false;
  private pendingTouches: LogOp[] = [];

  constructor(private readonly host: CompactorHost) {}

  /** Replays the log records `loaded` from the directory into `state`, taking up their sequence. */
  async replay(state: StoreState, loaded: Pick<LoadedStore, "manifest" | "records">): Promise<void> {
    // Puts and deletes change the graph: wait for it to load. A log of TTL refreshes only (or
    // none, after a clean close) lets the open finish before it.
    if (loaded.records.some((r) => r.ops.some((op) => op.t !== "touch"))) await state.vectors?.whenLoaded();
    this.seq = loaded.manifest.seq;
    for (const record of loaded.records) {
      for (const op of record.ops) state.applyLogOp(op, record.at);
      this.seq = record.seq;
    }
  }

  /**
   * Appends a record of `ops` to the log (see StoreFiles.append) and takes
   * its sequence number, both at once, so that concurrent readers logging
   * TTL refreshes never reuse a number. With `sync`, resolves once it is
   * fdatasync'ed; if that fails, the record is cut off again and its number
   * given back (a writer holds the lock alone, so nothing followed it).
   */
  writeLog(at: number, ops: LogOp[], sync: boolean): Promise<void> {
    const record = { seq: this.seq + 1, at, ops };
    const durable = this.host.files()?.append(record, sync);
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
  async logTouches(ops: LogOp[], at: number): Promise<void> {
    if (this.compacting) {
      this.pendingTouches.push(...ops);
      return;
    }
    await this.writeLog(at, ops, false);
  }

  /** Logs the refreshes held back during a compaction. A failure only loses refreshes: warned, not thrown. */
  private async flushTouches(): Promise<void> {
    const ops = this.pendingTouches;
    this.pendingTouches = [];
    if (!ops.length || !this.host.files()) return;
    try {
      await this.writeLog(this.host.clock(), ops, false);
    } catch (err) {
      this.host.logger.warn(`langgraph-hnsw-memory: logging ${ops.length} TTL refresh(es) after a compaction failed (${(err as Error)?.message ?? err}); those items keep their earlier expiry on disk`);
    }
  }

  /**
   * Compacts when the log is big enough (or a compaction is owed). Called
   * after writes that are already durable in the log, so a failure here is
   * never that write's failure: it is logged, and retried after the next
   * write and on close.
   */
  async maybeCompact(force: boolean, hold: WriteHold): Promise<void> {
    const files = this.host.files();
    if (!files) return;
    if (!force && !this.owed && files.logBytes < this.threshold()) return;
    try {
      await this.compactNow(hold);
      this.owed = false;
    } catch (err) {
      this.owed = true;
      this.host.logger.warn(
        `langgraph-hnsw-memory: compaction failed (${(err as Error)?.message ?? err}); every acknowledged write is safe in the log, and compaction is retried after the next write`,
      );
    }
  }

  /** Log size that triggers a compaction: `compactAfterBytes`, or `compactLogRatio` × the snapshot when that is more. */
  private threshold(): number {
    const floor = this.host.compactAfterBytes ?? COMPACT_AFTER_BYTES;
    const ratio = this.host.compactLogRatio ?? COMPACT_LOG_RATIO;
    return Math.max(floor, ratio * (this.host.files()?.snapshotBytes ?? 0));
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
  async compactNow(hold?: WriteHold): Promise<void> {
    const state = this.host.state()!;
    // Scrubbing and writing the index need its graph (loading for a moment after an open).
    await state.vectors?.whenLoaded();
    // Namespaces not used since the open are decoded now, a slice at a time: the rest of the pass reads every item.
    await state.items.decodeAll(new TimeSlicer(APPLY_SLICE_MS));
    // Expired items are not carried into the snapshot: they leave the disk here.
    const now = this.host.clock();
    const expired = [...state.items.items()].filter((item) => item.expiresAt !== undefined && item.expiresAt <= now);
    for (const item of expired) state.applyDelete(item.namespace, item.key);
    this.compacting = true;
    try {
      await this.host.files()!.compact(state, this.seq, this.host.manifest(state.vectors), async () => {
        hold?.shareWithReaders();
        await compactionTestHooks.frozen?.();
      });
      const cache = this.host.ownedCache();
      if (cache) {
        const texts: string[] = [];
        const slicer = new TimeSlicer(APPLY_SLICE_MS);
        for (const item of state.items.items()) {
          for (const f of extractFieldTexts(item.value, state.pathsFor(item.index))) texts.push(f.text);
          if (slicer.due) await slicer.pause();
        }
        await cache.retainDocuments(texts);
      }
    } finally {
      this.compacting = false;
      await this.flushTouches();
    }
  }
}
