import fs from "node:fs";
import hnswlib from "hnswlib-node";
import { CorruptStoreError } from "../../errors.js";
import type { FileCipher } from "./cipher.js";
import { fsyncFileAsync } from "./files.js";
import { fileChecksumAsync, type FileChecksum } from "./checksum.js";
import path from "node:path";
import { VectorCache } from "./vector-cache.js";

const { HierarchicalNSW } = hnswlib;
type Hnsw = InstanceType<typeof HierarchicalNSW>;

/**
 * @internal For tests only (not exported from the package): awaited by
 * {@link VectorIndex.load} before hnswlib reads the graph, so a test can hold
 * a store between its open and the graph's arrival.
 */
export const graphLoadTestHooks: { beforeRead?: () => Promise<void> } = {};

/** HNSW settings, recorded in the store's manifest. */
export interface HnswSettings {
  /** Only cosine is supported: scores are cosine similarities. */
  space: "cosine";
  dims: number;
  M: number;
  efConstruction: number;
  efSearch: number;
  initialCapacity: number;
  seed: number;
}

/** Bytes of vectors {@link VectorIndex.vector} keeps in JS, so exact scans skip hnswlib's slow getPoint. */
const VECTOR_CACHE_BYTES = 32 * 1024 * 1024;

/** Size of hnswlib's index file header (v0.8: six size_t, int, uint32, three size_t, double, size_t). */
const HNSW_HEADER_BYTES = 96;

/** Where each vector sits in the index file this index was last loaded from or written to. */
interface IndexFileLayout {
  path: string;
  /** Slots in the file; labels at or above are not in it. */
  count: number;
  stride: number;
  offsetData: number;
  labelOffset: number;
}

/** Reads the layout from an hnswlib index file's header; undefined when it does not look like one. */
function readLayout(file: string, dims: number): IndexFileLayout | undefined {
  try {
    const head = Buffer.alloc(HNSW_HEADER_BYTES);
    const fd = fs.openSync(file, "r");
    try {
      if (fs.readSync(fd, head, 0, HNSW_HEADER_BYTES, 0) !== HNSW_HEADER_BYTES) return undefined;
    } finally {
      fs.closeSync(fd);
    }
    const count = Number(head.readBigUInt64LE(16));
    const stride = Number(head.readBigUInt64LE(24));
    const labelOffset = Number(head.readBigUInt64LE(32));
    const offsetData = Number(head.readBigUInt64LE(40));
    if (labelOffset - offsetData !== dims * 4 || labelOffset + 8 > stride) return undefined;
    return { path: path.resolve(file), count, stride, offsetData, labelOffset };
  } catch {
    return undefined;
  }
}

/** hnswlib's answer as hits: finite distances only, each as a cosine similarity. */
export function hitsOf(res: { neighbors: number[]; distances: number[] }): VectorHit[] {
  const hits: VectorHit[] = [];
  for (let i = 0; i < res.neighbors.length; i++) {
    const d = res.distances[i]!;
    if (Number.isFinite(d)) hits.push({ label: res.neighbors[i]!, score: 1 - d });
  }
  return hits;
}

export interface VectorHit {
  label: number;
  /** Cosine similarity, 1 = same direction. */
  score: number;
}

/**
 * One hnswlib index with label bookkeeping: labels of removed vectors are
 * marked deleted and reused by later adds (hnswlib re-links the slot), and
 * capacity doubles when full. Removed vectors stay in the file until
 * {@link scrubRemoved} overwrites them, which compaction does, so that
 * deleted data leaves the disk.
 */
export class VectorIndex {
  /** The graph; undefined while {@link load} reads it. */
  private graph?: Hnsw;
  /** Settles when the graph is in memory (rejects if it could not be read). */
  private loading?: Promise<void>;
  /** Labels live items own, given before the graph finished loading. */
  private pendingUsed?: Uint8Array;
  private free: number[] = [];
  /** Removed labels whose vector data is still in the index. */
  private unscrubbed = new Set<number>();
  private scrubVector: number[];
  /**
   * label → stored vector, most recently used last. hnswlib's getPoint
   * builds a JS array one element at a time (~50 µs for 512 dims), which
   * dominated exact scans over one user's items; repeated scans of the same
   * items (the common case: one user, turn after turn) now read from here.
   */
  private readonly cache: VectorCache;
  /**
   * The index file, read directly for vectors the cache lacks (a 2 KB read
   * instead of getPoint's ~80 µs), except for labels changed since.
   */
  private layout?: IndexFileLayout;
  private changedSinceFile = new Set<number>();
  /** The file this index was read from (for error messages). */
  private file?: string;

  private constructor(
    readonly settings: HnswSettings,
    index: Hnsw | undefined,
  ) {
    this.graph = index;
    this.scrubVector = new Array<number>(settings.dims).fill(0);
    this.scrubVector[0] = 1;
    this.cache = new VectorCache(Math.max(256, Math.floor(VECTOR_CACHE_BYTES / (4 * settings.dims))));
  }

  static create(settings: HnswSettings): VectorIndex {
    const index = new HierarchicalNSW(settings.space, settings.dims);
    index.initIndex({
      maxElements: Math.max(16, settings.initialCapacity),
      m: settings.M,
      efConstruction: settings.efConstruction,
      randomSeed: settings.seed,
      allowReplaceDeleted: false,
    });
    index.setEf(settings.efSearch);
    return new VectorIndex(settings, index);
  }

  /**
   * Starts reading an index file on libuv's thread pool and returns at once:
   * the event loop keeps running, and the store can answer what needs no
   * graph (gets, and exact scans, whose vectors are read from the file)
   * while hnswlib loads it. {@link whenLoaded} settles when it is in memory;
   * everything that walks or changes the graph must await it first. The
   * caller must have checked the file's size and crc32: hnswlib trusts its
   * input. Call {@link keepLabels} next.
   */
  static load(file: string, settings: HnswSettings, cipher?: FileCipher): VectorIndex {
    const vi = new VectorIndex(settings, undefined);
    vi.file = file;
    if (!cipher) {
      vi.layout = readLayout(file, settings.dims);
      // The header is all an open checks before the graph is read: a mismatch fails it now.
      if (!vi.layout) throw new CorruptStoreError(`cannot read vector index ${file}: its header is not an hnswlib index of ${settings.dims}-dim vectors`, file);
    }
    vi.loading = vi.readGraph(file, cipher);
    vi.loading.catch(() => undefined); // surfaced by whenLoaded()
    return vi;
  }

  private async readGraph(file: string, cipher: FileCipher | undefined): Promise<void> {
    const { settings } = this;
    const index = new HierarchicalNSW(settings.space, settings.dims);
    await graphLoadTestHooks.beforeRead?.();
    try {
      if (cipher) await readSealedIndex(index, file, cipher);
      else await index.readIndex(file, false);
    } catch (err) {
      if (err instanceof CorruptStoreError) throw err;
      throw new CorruptStoreError(`cannot read vector index ${file}: ${(err as Error).message}`, file);
    }
    if (index.getNumDimensions() !== settings.dims) {
      throw new CorruptStoreError(`vector index ${file} has ${index.getNumDimensions()} dims, the manifest says ${settings.dims}`, file);
    }
    // hnswlib resets ef to 10 on read: restore the configured efSearch.
    index.setEf(settings.efSearch);
    this.graph = index;
    if (this.pendingUsed) this.applyUsed(this.pendingUsed);
    this.pendingUsed = undefined;
  }

  /** Settles once the graph is in memory; rejects (every time) if it could not be read. */
  whenLoaded(): Promise<void> {
    return this.loading ?? Promise.resolve();
  }

  /** Whether the graph is in memory (searches, adds and removes need it). */
  get loaded(): boolean {
    return this.graph !== undefined;
  }

  /** Whether {@link vectors} can answer before the graph is loaded (a plain index file). */
  get readsFromFile(): boolean {
    return this.layout !== undefined;
  }

  /** The graph; only code that awaited {@link whenLoaded} may use it. */
  private get index(): Hnsw {
    if (!this.graph) throw new Error(`vector index ${this.file ?? ""} is still loading: await whenLoaded() first`);
    return this.graph;
  }

  /**
   * Takes the labels live items own (`used[label] === 1`); every other label
   * in the file is free (and is re-marked as deleted, in case the file and the
   * items disagree).
   */
  keepLabels(used: Uint8Array): void {
    if (this.graph) return this.applyUsed(used);
    // A plain file's header tells its size now; a sealed one's is checked once loaded.
    if (this.layout) this.checkUsed(used, this.layout.count);
    this.pendingUsed = used;
  }

  private checkUsed(used: Uint8Array, count: number): void {
    if (used.length > count && used.indexOf(1, count) !== -1) {
      throw new CorruptStoreError(`vector index ${this.file} lacks label ${used.indexOf(1, count)} that an item refers to`, this.file ?? "");
    }
  }

  private applyUsed(used: Uint8Array): void {
    const count = this.index.getCurrentCount();
    this.checkUsed(used, count);
    for (let label = count - 1; label >= 0; label--) {
      if (used[label] === 1) continue;
      this.free.push(label);
      try {
        this.index.markDelete(label);
      } catch {
        // already marked deleted
      }
    }
  }

  /** Vectors currently searchable. */
  get liveCount(): number {
    return this.index.getCurrentCount() - this.free.length;
  }

  /** Slots in use, live or removed. */
  get slotCount(): number {
    return this.index.getCurrentCount();
  }

  get capacity(): number {
    return this.index.getMaxElements();
  }

  get removedCount(): number {
    return this.free.length;
  }

  /**
   * Makes room for `count` more vectors (beyond the labels free for reuse)
   * with at most one resize, doubling the capacity as often as needed.
   * Returns whether it resized. hnswlib copies or moves its whole memory on
   * a resize, and on some VMs, where fresh or moved memory is slow to touch,
   * the resize or the next insert then takes tens of milliseconds: a batch
   * calls this first and gives each of them a turn of the event loop of its own.
   */
  reserve(count: number): boolean {
    if (count <= 0) return false; // nothing to add (and a read may run before the graph is loaded)
    const needed = this.index.getCurrentCount() + Math.max(0, count - this.free.length);
    let capacity = this.index.getMaxElements();
    if (needed <= capacity) return false;
    while (capacity < needed) capacity = Math.max(16, capacity * 2);
    this.index.resizeIndex(capacity);
    return true;
  }

  /** Adds a vector and returns its label. */
  add(vector: ArrayLike<number>): number {
    // hnswlib-node takes JS arrays only.
    const points = Array.isArray(vector) ? (vector as number[]) : Array.from(vector);
    const reused = this.free.pop();
    let label: number;
    if (reused !== undefined) {
      label = reused;
      this.index.addPoint(points, label);
      this.unscrubbed.delete(label);
    } else {
      label = this.index.getCurrentCount();
      this.reserve(1);
      this.index.addPoint(points, label);
    }
    if (this.layout && label < this.layout.count) this.changedSinceFile.add(label);
    // Keep what hnswlib stores (the normalised vector), so scans need not read it back.
    this.cacheVector(label, normalised(vector));
    return label;
  }

  remove(label: number): void {
    this.cache.delete(label);
    if (this.layout && label < this.layout.count) this.changedSinceFile.add(label);
    this.index.markDelete(label);
    this.free.push(label);
    this.unscrubbed.add(label);
  }

  private cacheVector(label: number, v: Float32Array): void {
    this.cache.set(label, v);
  }

  /** The stored (normalised) vector of a label. Do not modify it. */
  vector(label: number): Float32Array {
    return this.vectors([label])[0]!;
  }

  /**
   * The stored (normalised) vectors of live labels, in order. Vectors not in
   * the cache are read from the index file in one pass where it still holds
   * them, else from hnswlib. Do not modify them.
   */
  vectors(labels: readonly number[]): Float32Array[] {
    const out = new Array<Float32Array>(labels.length);
    const missing: number[] = [];
    for (let i = 0; i < labels.length; i++) {
      const v = this.cache.get(labels[i]!);
      if (v) {
        out[i] = v;
      } else missing.push(i);
    }
    if (missing.length === 0) return out;
    const fromFile = this.readFromFile(missing.map((i) => labels[i]!));
    missing.forEach((i, j) => {
      const label = labels[i]!;
      const v = fromFile[j] ?? Float32Array.from(this.index.getPoint(label));
      this.cacheVector(label, v);
      out[i] = v;
    });
    return out;
  }

  /** Vectors of `labels` read from the index file (undefined where it cannot be trusted). */
  private readFromFile(labels: number[]): (Float32Array | undefined)[] {
    const layout = this.layout;
    const out = new Array<Float32Array | undefined>(labels.length);
    if (!layout) return out;
    const bytes = this.settings.dims * 4;
    const buf = Buffer.alloc(layout.stride);
    let fd: number;
    try {
      fd = fs.openSync(layout.path, "r");
    } catch {
      this.layout = undefined;
      return out;
    }
    try {
      labels.forEach((label, j) => {
        if (label >= layout.count || this.changedSinceFile.has(label)) return;
        // hnswlib keeps our labels as its internal ids (labels are added in order); the label field confirms it.
        const at = HNSW_HEADER_BYTES + label * layout.stride;
        if (fs.readSync(fd, buf, 0, layout.stride, at) !== layout.stride) return;
        if (Number(buf.readBigUInt64LE(layout.labelOffset)) !== label) return;
        const v = new Float32Array(this.settings.dims);
        new Uint8Array(v.buffer).set(buf.subarray(layout.offsetData, layout.offsetData + bytes));
        out[j] = v;
      });
    } catch {
      this.layout = undefined;
    } finally {
      fs.closeSync(fd);
    }
    return out;
  }

  /**
   * Approximate k nearest neighbours. `accept` restricts the labels that may
   * be returned (hnswlib's filtered search).
   */
  search(query: number[], k: number, accept?: (label: number) => boolean, ef?: number): VectorHit[] {
    return hitsOf(this.knn(query, k, accept, ef));
  }

  /**
   * {@link search} as hnswlib answers it: labels and cosine distances
   * (1 - similarity) in two arrays, with no object per hit. Distances may
   * include non-finite values, which `search` drops.
   */
  knn(query: number[], k: number, accept?: (label: number) => boolean, ef?: number): { neighbors: number[]; distances: number[] } {
    const live = this.liveCount;
    if (live === 0 || k <= 0) return { neighbors: [], distances: [] };
    const kk = Math.min(k, live, this.index.getMaxElements());
    this.index.setEf(Math.max(ef ?? this.settings.efSearch, kk));
    return accept ? this.index.searchKnn(query, kk, accept) : this.index.searchKnn(query, kk);
  }

  /** Overwrites the data of every removed vector with a constant vector. */
  scrubRemoved(): number {
    const n = this.unscrubbed.size;
    for (const label of this.unscrubbed) {
      if (this.layout && label < this.layout.count) this.changedSinceFile.add(label);
      this.index.addPoint(this.scrubVector, label);
      this.index.markDelete(label);
    }
    this.unscrubbed.clear();
    return n;
  }

  /**
   * Writes the index to `file`, fsyncs it and returns its size and crc32,
   * without blocking the event loop: hnswlib's `writeIndex` runs in the libuv
   * threadpool. Searches may run meanwhile (they only read the graph); nothing
   * may add or remove vectors until it resolves. With a cipher, hnswlib
   * writes to a RAM-backed (tmpfs) file, which is sealed into `file` piece by
   * piece and removed: the index is never on disk in clear.
   */
  async write(file: string, cipher?: FileCipher): Promise<FileChecksum> {
    // Reads go on using the file this index was loaded from or last wrote,
    // unless that is the very file about to be overwritten (a retried compaction).
    if (this.layout?.path === path.resolve(file)) this.layout = undefined;
    if (!cipher) {
      await this.index.writeIndex(file);
      await fsyncFileAsync(file);
      const sum = await fileChecksumAsync(file);
      this.changedSinceFile.clear();
      this.layout = readLayout(file, this.settings.dims);
      return sum;
    }
    const ram = cipher.ramPath(file);
    try {
      await this.index.writeIndex(ram);
      const sum = await cipher.sealFile(ram, file, "hnsw");
      // A sealed file cannot be read vector by vector: exact scans use the cache and getPoint.
      this.layout = undefined;
      this.changedSinceFile.clear();
      return sum;
    } finally {
      await cipher.releaseRamPath(ram);
    }
  }
}

/**
 * Opens a sealed index file into a RAM-backed file for hnswlib to read, then
 * removes it. Deciphered a chunk at a time straight into the RAM file, and
 * read by hnswlib only once authenticated: no whole copy of the index passes
 * through the JS heap (it took three such copies, ~660 MB at 100k 512-d vectors).
 */
async function readSealedIndex(index: Hnsw, file: string, cipher: FileCipher): Promise<void> {
  const ram = cipher.ramPath(file);
  try {
    const fd = fs.openSync(ram, "r+");
    let authentic: boolean;
    try {
      authentic = cipher.openFileTo(file, fd, "hnsw");
    } finally {
      fs.closeSync(fd);
    }
    if (!authentic) throw new CorruptStoreError(`vector index ${file} fails authentication (corrupt or tampered)`, file);
    await index.readIndex(ram, false);
  } finally {
    await cipher.releaseRamPath(ram);
  }
}

function normalised(v: ArrayLike<number>): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}
