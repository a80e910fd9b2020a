import { checkBoolean, checkKnownKeys, checkNumber } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { Embeddings } from "@langchain/core/embeddings";
import { EmbeddingError, IncompatibleStoreError, InvalidArgumentError, StoreClosedError } from "../errors.js";
import { embedderIdentity } from "./identity.js";
import { isEmbeddingsLike, toEmbeddings, type EmbeddingsFunc, type EmbeddingsInterfaceLike } from "./resolve-embeddings.js";
import { decodeVector, encodeVector } from "./vector-codec.js";
import { isAlive } from "../process-alive.js";
import { mapInSlices, TimeSlicer, yieldToLoop } from "../time-slice.js";

/** Options for {@link CachedEmbeddings}. */
export interface CachedEmbeddingsOptions {
  /**
   * The embedder whose vectors are cached: any object with `embedDocuments`
   * and `embedQuery` (not necessarily from this copy of `@langchain/core`),
   * or a function `(texts) => Promise<number[][]>`.
   */
  embeddings: EmbeddingsInterfaceLike | EmbeddingsFunc;
  /**
   * A JSON-lines file that keeps the cache across restarts (for a store, in
   * its directory). Loaded on first use; new vectors are appended and
   * fsynced. Without it the cache lives in memory only.
   * @default undefined
   */
  file?: string;
  /**
   * Most vectors kept in memory; the least recently used are dropped. When
   * the file holds more than twice this many lines on open, it is compacted
   * (rewritten atomically with the entries kept).
   * @default 20000
   */
  maxEntries?: number;
  /**
   * The embedder embeds a query exactly as a document
   * (`embedQuery(t)` equals `embedDocuments([t])[0]`), so both share cache
   * entries: a text searched for and then stored is embedded once. Never
   * set it for asymmetric models (e5-style "query:"/"passage:" prefixes,
   * OpenAI's are symmetric but not declared).
   * @default the inner embedder's own `symmetric` property, else false
   */
  symmetric?: boolean;
  /**
   * Seals each entry line of the file (encryption at rest); an entry that
   * does not open is dropped and its text embedded again.
   * @default undefined (plain lines)
   */
  lineCipher?: LineCipher;
}

/** Seals and opens single lines (see the store's `FileCipher`). */
export interface LineCipher {
  sealLine(plain: string, kind: string): string;
  openLine(sealed: string, kind: string): string | undefined;
}

/** Counts of cache lookups since construction. */
export interface CacheStats {
  /** Texts answered from the cache (or from an identical text in flight). */
  hits: number;
  /** Texts sent to the inner embedder. */
  misses: number;
}

const FORMAT = "embedding-cache";
/** 2: each entry line carries a crc32 of its key and vector. Version-1 entries (unchecked) are dropped and recomputed. */
const VERSION = 2;

const lineCrc = (k: string, v: string) => zlib.crc32(`${k} ${v}`).toString(16).padStart(8, "0");
const plainEntryLine = (k: string, vector: Float32Array) => {
  const v = encodeVector(vector);
  return JSON.stringify({ k, v, c: lineCrc(k, v) }) + "\n";
};

/** Longest stretch of hashing or encoding before the cache yields to the event loop. */
const SLICE_MS = 8;
/** Appends of up to this many entries are encoded at once (a fraction of a millisecond). */
const APPEND_AT_ONCE = 16;


type Kind = "d" | "q";

function allFinite(v: number[]): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

/**
 * A content-hash → vector cache in front of any LangChain embedder, so the
 * same text is never embedded twice: not within one call, not by two
 * concurrent calls, and (with `file`) not across restarts. Paid embedders
 * then cost nothing on re-puts and repeated queries.
 *
 * Keys are sha256(identity, kind, text), where identity is the inner
 * embedder's {@link embedderIdentity} and kind separates documents from
 * queries (some models embed them differently). Vectors are kept as
 * float32, the precision the HNSW index stores; misses are rounded the same
 * way so a vector does not change when it comes back from the cache.
 *
 * @example
 * ```ts
 * const embeddings = new CachedEmbeddings({
 *   embeddings: new OpenAIEmbeddings({ model: "text-embedding-3-small" }),
 *   file: "./memory/embedding-cache.jsonl",
 * });
 * ```
 */
export class CachedEmbeddings extends Embeddings {
  /** The wrapped embedder. */
  readonly inner: Embeddings;
  readonly file?: string;
  readonly maxEntries: number;
  /** Queries and documents share entries (see {@link CachedEmbeddingsOptions.symmetric}). */
  readonly symmetric: boolean;
  private readonly identity: string;
  private readonly entries = new Map<string, Float32Array>();
  /** Keys of query vectors held in memory (never written to the file). */
  private readonly queryKeys = new Set<string>();
  private readonly inFlight = new Map<string, Promise<Float32Array>>();
  private readonly counts: CacheStats = { hits: 0, misses: 0 };
  private opened?: Promise<fs.FileHandle | undefined>;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private lineCipher?: LineCipher;
  /** See {@link acceptPlainLinesOnce}. */
  private acceptPlain = false;

  constructor(options: CachedEmbeddingsOptions) {
    super({});
    checkKnownKeys(options, OPTION_KEYS.cachedEmbeddings);
    if (!options || (typeof options.embeddings !== "function" && !isEmbeddingsLike(options.embeddings)) || typeof options.embeddings === "string") {
      throw new InvalidArgumentError(
        "CachedEmbeddings needs { embeddings }: an object with embedDocuments and embedQuery, or a function (texts) => Promise<number[][]>",
      );
    }
    if (options.file !== undefined && (typeof options.file !== "string" || options.file === "")) {
      throw new InvalidArgumentError(`CachedEmbeddings file must be a non-empty path, got ${JSON.stringify(options.file)}`);
    }
    checkNumber(options.maxEntries, "maxEntries", { min: 1, integer: true });
    checkBoolean(options.symmetric, "symmetric");
    const maxEntries = options.maxEntries ?? 20_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new InvalidArgumentError(`CachedEmbeddings maxEntries must be an integer >= 1, got ${String(options.maxEntries)}`);
    }
    this.inner = toEmbeddings(options.embeddings);
    this.file = options.file;
    this.maxEntries = maxEntries;
    this.identity = embedderIdentity(this.inner);
    this.symmetric = options.symmetric ?? (this.inner as { symmetric?: unknown }).symmetric === true;
    this.lineCipher = options.lineCipher;
  }

  /** Seals lines with another key from now on; the next `retainDocuments` rewrites the file with it. */
  setLineCipher(cipher: LineCipher | undefined): void {
    this.lineCipher = cipher;
  }

  /**
   * The directory is being encrypted in place (`migratePlaintext`): when the
   * file is loaded, entry lines written in clear before are read too (each
   * still checked against its crc32), and the file is rewritten sealed, so
   * the migration keeps the cache instead of paying to embed everything
   * again. Call before the cache's first use.
   */
  acceptPlainLinesOnce(): void {
    this.acceptPlain = true;
  }

  private entryLine(k: string, v: Float32Array, cipher = this.lineCipher): string {
    const line = plainEntryLine(k, v);
    return cipher ? cipher.sealLine(line.slice(0, -1), "cache") + "\n" : line;
  }

  /** Reports the inner embedder's identity, so the cache is transparent to the store. */
  embedderIdentity(): string {
    return this.identity;
  }

  /** Hits and misses so far. */
  get stats(): CacheStats {
    return { ...this.counts };
  }

  /** Number of vectors held in memory. */
  get size(): number {
    return this.entries.size;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    if (!Array.isArray(texts)) throw new InvalidArgumentError("embedDocuments needs an array of strings");
    texts.forEach((t, i) => {
      if (typeof t !== "string") throw new InvalidArgumentError(`embedDocuments: text ${i} is ${typeof t}, not a string`);
    });
    return this.lookup(texts, "d");
  }

  async embedQuery(text: string): Promise<number[]> {
    if (typeof text !== "string") throw new InvalidArgumentError(`embedQuery needs a string, got ${typeof text}`);
    const [v] = await this.lookup([text], "q");
    return v!;
  }

  /**
   * Keeps only the document vectors of `texts` (in memory and in the file,
   * which is rewritten atomically), so that vectors of deleted items leave
   * the disk. Query vectors stay in memory only. The store calls this when it
   * compacts.
   */
  async retainDocuments(texts: Iterable<string>): Promise<void> {
    if (this.closed) return;
    // Load the file first: its entries must be filtered too, or a process
    // that never embedded anything would write every old entry back.
    const old = await this.open();
    const keep = new Set<string>();
    // Hashing 100k texts takes a few hundred ms: in slices, so the event loop keeps running.
    const slicer = new TimeSlicer(SLICE_MS);
    for (const t of texts) {
      keep.add(this.key("d", t));
      if (slicer.due) await slicer.pause();
    }
    const queries = new Set<string>();
    await Promise.allSettled([...this.inFlight.values()]);
    await this.writing;
    for (const key of [...this.entries.keys()]) {
      if (this.queryKeys.has(key)) queries.add(key);
      else if (!keep.has(key)) this.entries.delete(key);
    }
    // close() may have run during the awaits above: it closed the old handle, and a new one would leak.
    if (this.file === undefined || this.closed) return;
    const file = this.file;
    const reopened = (async () => {
      await old?.close();
      await this.writeFile(file, [...this.entries].filter(([k]) => !queries.has(k)));
      return fs.open(file, "a");
    })();
    this.opened = reopened;
    await reopened;
  }

  /** Waits for pending appends and releases the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inFlight.values()]);
    await this.writing;
    const handle = await this.opened?.catch(() => undefined);
    await handle?.close();
  }

  private key(kind: Kind, text: string): string {
    if (this.symmetric) kind = "d";
    return createHash("sha256").update(this.identity).update("\0").update(kind).update("\0").update(text).digest("hex");
  }

  private remember(key: string, v: Float32Array): void {
    this.entries.delete(key);
    this.entries.set(key, v);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value!;
      this.entries.delete(oldest);
      this.queryKeys.delete(oldest);
    }
  }

  private async lookup(texts: string[], kind: Kind): Promise<number[][]> {
    if (this.closed) throw new StoreClosedError("CachedEmbeddings was used after close()");
    const handle = await this.open();
    // Hashing, converting and encoding run in slices: a batch of thousands of texts never holds the event loop for long.
    const keys = await mapInSlices(texts, (t) => this.key(kind, t), new TimeSlicer(SLICE_MS, true));
    // Query vectors stay in memory only, unless a document already holds the same entry.
    if (kind === "q") for (const k of keys) if (!this.entries.has(k) || this.queryKeys.has(k)) this.queryKeys.add(k);
    const results = new Array<Promise<Float32Array> | Float32Array>(texts.length);
    const missKeys: string[] = [];
    const missTexts: string[] = [];
    const missSet = new Set<string>();
    keys.forEach((key, i) => {
      const cached = this.entries.get(key);
      if (cached) {
        this.remember(key, cached);
        this.counts.hits++;
        results[i] = cached;
        return;
      }
      const pending = this.inFlight.get(key);
      if (pending) {
        this.counts.hits++;
        results[i] = pending;
        return;
      }
      if (missSet.has(key)) {
        this.counts.hits++; // a repeat within this call
        return;
      }
      missSet.add(key);
      missKeys.push(key);
      missTexts.push(texts[i]!);
    });
    if (missTexts.length > 0) {
      this.counts.misses += missTexts.length;
      const batch = this.embedMisses(missTexts, kind);
      missKeys.forEach((key, j) => {
        const p = batch.then((vs) => vs[j]!);
        p.catch(() => undefined);
        this.inFlight.set(key, p);
      });
      batch
        .then(
          (vs) => {
            missKeys.forEach((key, j) => this.remember(key, vs[j]!));
            if (kind === "d") for (const key of missKeys) this.queryKeys.delete(key);
            // Only document vectors go to disk: queries are not tied to any
            // item, so they could never be purged when their owner is deleted.
            if (handle && kind === "d") this.append(handle, missKeys, vs);
          },
          () => undefined,
        )
        .finally(() => missKeys.forEach((key) => this.inFlight.delete(key)));
      keys.forEach((key, i) => {
        if (results[i] === undefined) results[i] = this.inFlight.get(key)!;
      });
    }
    const vectors = await Promise.all(results);
    if (kind === "d" && this.symmetric) {
      // A query vector reused for a document now belongs on disk.
      const promoted = new Map<string, Float32Array>();
      keys.forEach((key, i) => {
        if (this.queryKeys.delete(key)) promoted.set(key, vectors[i]!);
      });
      if (handle && promoted.size) this.append(handle, [...promoted.keys()], [...promoted.values()]);
    }
    return mapInSlices(vectors, (v) => Array.from(v), new TimeSlicer(SLICE_MS, true));
  }

  private async embedMisses(texts: string[], kind: Kind): Promise<Float32Array[]> {
    let out: number[][];
    try {
      out = kind === "q" ? [await this.inner.embedQuery(texts[0]!)] : await this.inner.embedDocuments(texts);
    } catch (err) {
      if (err instanceof EmbeddingError) throw err;
      throw new EmbeddingError(`embedder ${this.identity} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!Array.isArray(out) || out.length !== texts.length) {
      throw new EmbeddingError(`embedder ${this.identity} returned ${Array.isArray(out) ? out.length : "no"} vectors for ${texts.length} texts`);
    }
    return mapInSlices(
      out,
      (v, i) => {
        if (!Array.isArray(v) || v.length === 0 || !allFinite(v)) {
          throw new EmbeddingError(`embedder ${this.identity} returned an empty or non-finite vector for text ${i}`);
        }
        return Float32Array.from(v);
      },
      new TimeSlicer(SLICE_MS, true),
    );
  }

  /**
   * Queues one durable append of the new entries (one write + datasync).
   * A few lines are encoded at once; many (a large batch) are encoded in a
   * later turn of the event loop and in slices, not in the turn that
   * received the vectors (where the store goes on preparing its batch),
   * with the line cipher of the moment they were queued.
   */
  private append(handle: fs.FileHandle, keys: string[], vectors: Float32Array[]): void {
    const cipher = this.lineCipher;
    const encode = (k: string, i: number) => Buffer.from(this.entryLine(k, vectors[i]!, cipher), "utf8");
    const now = keys.length <= APPEND_AT_ONCE ? keys.map(encode) : undefined;
    this.writing = this.writing
      .then(async () => {
        let lines = now;
        if (!lines) {
          await yieldToLoop();
          lines = await mapInSlices(keys, encode, new TimeSlicer(SLICE_MS, true));
        }
        await handle.appendFile(Buffer.concat(lines));
        await handle.datasync();
      })
      .catch((err: unknown) => {
        // The cache is an optimisation: losing an append costs a re-embed later.
        process.emitWarning(`embedding cache append to ${this.file} failed: ${String(err)}`);
      });
  }

  private open(): Promise<fs.FileHandle | undefined> {
    this.opened ??= this.file === undefined ? Promise.resolve(undefined) : this.load(this.file);
    return this.opened;
  }

  /**
   * Reads the file, drops a torn last line and every entry whose checksum
   * fails (it is embedded again when needed, never served), removes
   * temporary files left by crashed rewrites, compacts if oversized, and
   * opens it for appending.
   */
  private async load(file: string): Promise<fs.FileHandle> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await this.removeDeadTemps(file);
    let text = "";
    try {
      text = await fs.readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const complete = text.slice(0, text.lastIndexOf("\n") + 1); // a torn last line is dropped
    const lines = complete.split("\n").filter((l) => l.length > 0);
    let entryLines = 0;
    let plainLines = 0;
    let dropped = 0;
    let head: { format?: unknown; version?: unknown } | undefined;
    if (lines.length > 0) {
      try {
        head = JSON.parse(lines[0]!);
      } catch {
        head = undefined;
      }
      if (head?.format === FORMAT && typeof head.version === "number" && head.version > VERSION) {
        throw new IncompatibleStoreError(`${file} has embedding-cache version ${String(head.version)}; this code reads up to ${VERSION}`);
      }
      // A damaged header above cache entries is rebuilt; any other file is not ours to overwrite.
      const entriesFollow = lines.length > 1 && lines.slice(1, 4).every((l) => l.startsWith('{"k":'));
      if (head?.format !== FORMAT && !entriesFollow) {
        throw new IncompatibleStoreError(`${file} is not an embedding cache (first line: ${lines[0]!.slice(0, 80)})`);
      }
      for (const line of lines.slice(1)) {
        try {
          const inClear = this.acceptPlain && this.lineCipher !== undefined && line.startsWith('{"k":');
          if (inClear) plainLines++;
          const plain = this.lineCipher && !inClear ? this.lineCipher.openLine(line, "cache") : line;
          if (plain === undefined) {
            dropped++;
            continue;
          }
          const { k, v, c } = JSON.parse(plain) as { k?: unknown; v?: unknown; c?: unknown };
          const ok = typeof k === "string" && /^[0-9a-f]{64}$/.test(k) && typeof v === "string" && c === lineCrc(k, v);
          const vec = ok ? decodeVector(v as string) : undefined;
          if (vec && vec.length > 0) {
            this.remember(k as string, vec);
            entryLines++;
          } else dropped++;
        } catch {
          dropped++;
        }
      }
    }
    if (dropped > 0 && head?.version === VERSION) {
      process.emitWarning(`embedding cache ${file}: dropped ${dropped} corrupt entr${dropped === 1 ? "y" : "ies"}; their texts are embedded again when needed`);
    }
    this.acceptPlain = false;
    if (lines.length === 0 || dropped > 0 || plainLines > 0 || head?.version !== VERSION || entryLines > 2 * this.maxEntries || complete.length !== text.length) {
      // Rewrite atomically: new file, torn tail or bad entries removed, old version, or too many lines.
      await this.writeFile(file, [...this.entries]);
    }
    return fs.open(file, "a");
  }

  /** Removes `<file>.<pid>.tmp` files whose process is gone (a crash mid-rewrite). */
  private async removeDeadTemps(file: string): Promise<void> {
    const base = path.basename(file);
    const dir = path.dirname(file);
    for (const name of await fs.readdir(dir)) {
      if (!name.startsWith(`${base}.`) || !name.endsWith(".tmp")) continue;
      const pid = Number(name.slice(base.length + 1, -4));
      if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await fs.rm(path.join(dir, name), { force: true });
    }
  }

  /**
   * Writes the header and `entries` to `file` atomically (temp file, fsync,
   * rename). Lines are encoded in slices of a few milliseconds and written a
   * piece at a time, so rewriting 100k entries does not block the event loop.
   */
  private async writeFile(file: string, entries: [string, Float32Array][]): Promise<void> {
    const header = JSON.stringify({ format: FORMAT, version: VERSION, identity: this.identity }) + "\n";
    const tmp = `${file}.${process.pid}.tmp`;
    const h = await fs.open(tmp, "w");
    try {
      let piece = [header];
      let sliceStart = performance.now();
      for (const [k, v] of entries) {
        piece.push(this.entryLine(k, v));
        if (performance.now() - sliceStart > SLICE_MS) {
          await h.writeFile(piece.join(""), "utf8");
          piece = [];
          sliceStart = performance.now();
        }
      }
      await h.writeFile(piece.join(""), "utf8");
      await h.sync();
    } finally {
      await h.close();
    }
    await fs.rename(tmp, file);
  }
}
