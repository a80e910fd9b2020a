import fs from "node:fs";
import zlib from "node:zlib";
import { CorruptStoreError } from "../../errors.js";
import type { FileCipher } from "./cipher.js";
import { fsyncDir, fsyncDirAsync, writeAll, writeAllAsync } from "./files.js";
import path from "node:path";
import type { TimeSlicer } from "../../time-slice.js";

/** One change, as recorded in the log. */
export type LogOp =
  | {
      t: "put";
      ns: string[];
      key: string;
      value: Record<string, unknown>;
      /** Per-put index override. */
      index?: false | string[];
      /** Expiry time (ms since epoch); absent = never. */
      exp?: number;
      /** TTL in minutes, kept for refresh-on-read. */
      ttl?: number;
      /** `[field, base64 float32 vector]` pairs. */
      vec?: [string, string][];
    }
  | { t: "del"; ns: string[]; key: string }
  | { t: "touch"; ns: string[]; key: string; exp: number };

/** The changes of one batch: replayed together or not at all. */
export interface LogRecord {
  seq: number;
  /** The batch's clock time (ms), so replay restores the same timestamps. */
  at: number;
  ops: LogOp[];
}

const NEWLINE = Buffer.from("\n");
const COMMA = Buffer.from(",");
const RECORD_END = Buffer.from("]}");

/** Ops serialised ahead of their append by {@link encodeLogOps}: op → its JSON, as UTF-8. */
const preEncoded = new WeakMap<LogOp, Buffer>();

/**
 * Serialises `ops` ahead of the append that will write them, in slices of
 * `slicer`, so that the append (synchronous, for its single write) only
 * copies bytes: JSON-encoding a batch of 1,000 puts with their vectors takes
 * tens of milliseconds, which would otherwise hold the event loop at once.
 * The ops must not change before they are appended.
 */
export async function encodeLogOps(ops: readonly LogOp[], slicer: TimeSlicer): Promise<void> {
  for (let i = 0; i < ops.length; i++) {
    if (i > 0 && slicer.due) await slicer.pause();
    preEncoded.set(ops[i]!, Buffer.from(JSON.stringify(ops[i]), "utf8"));
  }
}

/** A record's JSON (the same text as `JSON.stringify(record)`) in pieces, using the ops' {@link encodeLogOps} bytes. */
function recordPieces(record: LogRecord): Buffer[] {
  const pieces: Buffer[] = [Buffer.from(`{"seq":${JSON.stringify(record.seq)},"at":${JSON.stringify(record.at)},"ops":[`)];
  record.ops.forEach((op, i) => {
    if (i > 0) pieces.push(COMMA);
    pieces.push(preEncoded.get(op) ?? Buffer.from(JSON.stringify(op), "utf8"));
    preEncoded.delete(op);
  });
  pieces.push(RECORD_END);
  return pieces;
}

/** Records up to this size are assembled in a buffer the log keeps (fresh memory is slow to touch on some VMs). */
const SCRATCH_MAX = 8 * 1024 * 1024;
const crc = (s: string) => zlib.crc32(s).toString(16).padStart(8, "0");

/** The first line of a log: its generation and the sequence number it follows. */
function headerLine(generation: number, after: number): Buffer {
  const json = JSON.stringify({ wal: generation, after });
  return Buffer.from(`${crc(json)} ${json}\n`);
}

/** What the manifest says the log of its generation must look like. */
export interface LogExpectation {
  generation: number;
  /** The log's first record is `after + 1`; its header says so. */
  after: number;
}

/** The page size at which the kernel can cut a write short (SIGKILL between pages). */
const PAGE = 4096;

function isRecord(r: LogRecord): boolean {
  return r !== null && typeof r === "object" && Number.isInteger(r.seq) && Number.isFinite(r.at) && Array.isArray(r.ops);
}

/**
 * Append-only log of acknowledged batches. Each record is one line,
 * `<crc32> <json>\n`, written with a single write before the batch's promise
 * resolves, so it survives the process being killed (SIGKILL) right after;
 * with `sync`, each append is also fdatasync'ed, so it survives power loss.
 *
 * On open, a torn last line (a crash mid-write) is dropped and cut off; any
 * other bad line is corruption and fails with the file and line named.
 */
export class WriteAheadLog {
  private fd: number;
  private bytes: number;
  /** See {@link lineBuffer}. */
  private scratch?: Buffer;

  private constructor(
    readonly file: string,
    fd: number,
    bytes: number,
    private readonly headerBytes: number,
    private readonly cipher?: FileCipher,
  ) {
    this.fd = fd;
    this.bytes = bytes;
  }

  /**
   * Creates (or empties) a log that starts with a header naming its
   * generation and the sequence number it follows, fsynced.
   */
  static create(file: string, generation: number, after: number): void {
    const fd = fs.openSync(file, "w");
    try {
      writeAll(fd, headerLine(generation, after));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fsyncDir(path.dirname(file));
  }

  /** {@link create} without blocking the event loop (the fsyncs run in the threadpool). */
  static async createAsync(file: string, generation: number, after: number): Promise<void> {
    const h = await fs.promises.open(file, "w");
    try {
      await writeAllAsync(h, headerLine(generation, after));
      await h.sync();
    } finally {
      await h.close();
    }
    await fsyncDirAsync(path.dirname(file));
  }

  /**
   * Opens the log and returns the records it holds. With `expect` (format 2),
   * the log must exist and start with the header the manifest implies, and
   * its records must follow each other without a gap. Without it (format 1
   * directories), a missing log is an empty one.
   *
   * A partial last line is a torn append (the process died mid-write) only
   * where a write can really be cut short: at a page boundary, or as a run of
   * zero bytes (unwritten blocks after a power cut). It is dropped and cut
   * off. A partial line anywhere else means the file was shortened, and is a
   * {@link CorruptStoreError}, as is any other bad line.
   */
  static open(file: string, expect?: LogExpectation, cipher?: FileCipher): { log: WriteAheadLog; records: LogRecord[]; droppedTornTail: boolean } {
    const { records, keep, headerBytes, droppedTornTail } = WriteAheadLog.read(file, expect, cipher);
    if (droppedTornTail) fs.truncateSync(file, keep);
    const fd = fs.openSync(file, "a");
    return { log: new WriteAheadLog(file, fd, keep, headerBytes, cipher), records, droppedTornTail };
  }

  /**
   * Reads and checks the log without changing it (as {@link open} does, but
   * a torn tail is only reported): for tools that look at a directory another
   * process may own. `keep` is the length of the complete lines.
   */
  static read(
    file: string,
    expect?: LogExpectation,
    cipher?: FileCipher,
  ): { records: LogRecord[]; keep: number; headerBytes: number; droppedTornTail: boolean } {
    const records: LogRecord[] = [];
    let keep = 0;
    let headerBytes = 0;
    let droppedTornTail = false;
    const exists = fs.existsSync(file);
    if (!exists && expect) {
      throw new CorruptStoreError(`log ${file} is missing; the manifest says generation ${expect.generation}'s log holds every change after sequence ${expect.after}`, file);
    }
    if (exists) {
      const buf = fs.readFileSync(file);
      let start = 0;
      let lineNo = 0;
      let prevSeq = expect?.after;
      while (start < buf.length) {
        const nl = buf.indexOf(10, start);
        lineNo++;
        if (nl === -1) {
          const tail = buf.subarray(start);
          if (buf.length % PAGE !== 0 && !tail.every((b) => b === 0)) {
            throw new CorruptStoreError(
              `log ${file} ends inside a record at byte ${buf.length} (line ${lineNo}), where no crash can cut a write: the file was shortened and later records are lost`,
              file,
            );
          }
          droppedTornTail = true; // torn last line: the crash happened mid-append
          break;
        }
        const line = buf.toString("utf8", start, nl);
        const sp = line.indexOf(" ");
        const payload = line.slice(sp + 1);
        if (sp !== 8 || crc(payload) !== line.slice(0, 8)) {
          throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (checksum mismatch)`, file);
        }
        // The header (generation, sequence) is plain; records are sealed when the store is encrypted.
        const json = cipher && !(expect && lineNo === 1) ? cipher.openLine(payload, "wal") : payload;
        if (json === undefined) throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (fails authentication)`, file);
        let parsed: LogRecord & { wal?: number; after?: number };
        try {
          parsed = JSON.parse(json) as LogRecord;
        } catch {
          throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (invalid JSON)`, file);
        }
        if (expect && lineNo === 1) {
          if (parsed.wal !== expect.generation || parsed.after !== expect.after) {
            throw new CorruptStoreError(`log ${file} does not start with the header of generation ${expect.generation} after sequence ${expect.after}`, file);
          }
          headerBytes = nl + 1;
        } else {
          if (!isRecord(parsed)) throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (not a log record)`, file);
          if (prevSeq !== undefined && parsed.seq !== prevSeq + 1) {
            throw new CorruptStoreError(`log ${file} jumps from sequence ${prevSeq} to ${parsed.seq} at line ${lineNo}: records are missing`, file);
          }
          prevSeq = parsed.seq;
          records.push(parsed);
        }
        start = nl + 1;
        keep = start;
      }
      if (expect && lineNo === 0) throw new CorruptStoreError(`log ${file} is empty: its header is missing (the file was truncated)`, file);
      if (expect && keep === 0) throw new CorruptStoreError(`log ${file} has no complete header (the file was truncated)`, file);
    }
    return { records, keep, headerBytes, droppedTornTail };
  }

  /**
   * Appends one record with a single write, before this returns (a failure
   * throws at once): durable against process death from then on. With `sync`, it is then
   * fdatasync'ed in the libuv threadpool, so the event loop keeps running,
   * and the promise resolves once it would survive a power cut. Either way
   * a failure (disk full, I/O error) cuts the record off again, so no
   * unacknowledged record stays behind, and rejects.
   */
  append(record: LogRecord, sync: boolean): Promise<void> {
    const before = this.bytes;
    this.appendNow(record); // throws at once: nothing was written
    if (!sync) return Promise.resolve();
    return new Promise<void>((resolve, reject) => fs.fdatasync(this.fd, (err) => (err ? reject(err) : resolve()))).catch((err: unknown) => {
      this.cutBack(before);
      throw err;
    });
  }

  /** Appends one record with a single write, without fsync. */
  appendNow(record: LogRecord): void {
    // The line `${crc(payload)} ${payload}\n`, built from bytes: the crc is taken on them, and in clear the
    // payload is the ops' JSON as {@link encodeLogOps} left it, copied into a buffer the log reuses.
    const pieces = this.cipher ? [Buffer.from(this.cipher.sealLine(JSON.stringify(record), "wal"))] : recordPieces(record);
    let crc32 = 0;
    let payloadBytes = 0;
    for (const p of pieces) {
      crc32 = zlib.crc32(p, crc32);
      payloadBytes += p.length;
    }
    const buf = this.lineBuffer(9 + payloadBytes + 1);
    let at = buf.write(`${crc32.toString(16).padStart(8, "0")} `, 0, "latin1");
    for (const p of pieces) at += p.copy(buf, at);
    buf[at++] = NEWLINE[0]!;
    try {
      writeAll(this.fd, buf);
    } catch (err) {
      this.cutBack(this.bytes);
      throw err;
    }
    this.bytes += buf.length;
  }

  /** A buffer of exactly `bytes` for one line: a view of the reused scratch buffer when small enough. */
  private lineBuffer(bytes: number): Buffer {
    if (bytes > SCRATCH_MAX) return Buffer.allocUnsafe(bytes);
    if (!this.scratch || this.scratch.length < bytes) this.scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(bytes, 2 * (this.scratch?.length ?? 32 * 1024))));
    return this.scratch.subarray(0, bytes);
  }

  /** Leaves no partial or unacknowledged line behind (disk full…). */
  private cutBack(bytes: number): void {
    try {
      fs.ftruncateSync(this.fd, bytes);
      this.bytes = bytes;
    } catch {
      // the torn tail is dropped on the next open
    }
  }

  /** Bytes of records (the header not counted). */
  get size(): number {
    return this.bytes - this.headerBytes;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
