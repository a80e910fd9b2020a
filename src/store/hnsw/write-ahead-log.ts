import fs from "node:fs";
import zlib from "node:zlib";
import { CorruptStoreError } from "../../errors.js";
import type { FileCipher } from "./cipher.js";
import { writeAll } from "./files.js";

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

const crc = (s: string) => zlib.crc32(s).toString(16).padStart(8, "0");

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

  private constructor(
    readonly file: string,
    fd: number,
    bytes: number,
    private readonly cipher?: FileCipher,
  ) {
    this.fd = fd;
    this.bytes = bytes;
  }

  /** Opens (creating if needed) the log and returns the records it holds. */
  static open(file: string, cipher?: FileCipher): { log: WriteAheadLog; records: LogRecord[]; droppedTornTail: boolean } {
    const records: LogRecord[] = [];
    let keep = 0;
    let droppedTornTail = false;
    if (fs.existsSync(file)) {
      const buf = fs.readFileSync(file);
      let start = 0;
      let lineNo = 0;
      while (start < buf.length) {
        const nl = buf.indexOf(10, start);
        lineNo++;
        if (nl === -1) {
          droppedTornTail = true; // torn last line: the crash happened mid-append
          break;
        }
        const line = buf.toString("utf8", start, nl);
        const sp = line.indexOf(" ");
        const payload = line.slice(sp + 1);
        if (sp !== 8 || crc(payload) !== line.slice(0, 8)) {
          throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (checksum mismatch)`, file);
        }
        const json = cipher ? cipher.openLine(payload, "wal") : payload;
        if (json === undefined) throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (fails authentication)`, file);
        try {
          records.push(JSON.parse(json) as LogRecord);
        } catch {
          throw new CorruptStoreError(`log ${file} is corrupt at line ${lineNo} (invalid JSON)`, file);
        }
        start = nl + 1;
        keep = start;
      }
      if (droppedTornTail) fs.truncateSync(file, keep);
    }
    const fd = fs.openSync(file, "a");
    return { log: new WriteAheadLog(file, fd, keep, cipher), records, droppedTornTail };
  }

  /** Appends one record; durable against process death when this returns. */
  append(record: LogRecord, sync: boolean): void {
    const json = JSON.stringify(record);
    const payload = this.cipher ? this.cipher.sealLine(json, "wal") : json;
    const buf = Buffer.from(`${crc(payload)} ${payload}\n`);
    try {
      writeAll(this.fd, buf);
      if (sync) fs.fdatasyncSync(this.fd);
    } catch (err) {
      // Leave no partial line behind (disk full…): the batch is not acknowledged.
      try {
        fs.ftruncateSync(this.fd, this.bytes);
      } catch {
        // the torn tail is dropped on the next open
      }
      throw err;
    }
    this.bytes += buf.length;
  }

  get size(): number {
    return this.bytes;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
