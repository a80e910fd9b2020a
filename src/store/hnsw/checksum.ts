import fs from "node:fs";
import { Worker } from "node:worker_threads";
import zlib from "node:zlib";
import { CorruptStoreError } from "../../errors.js";

/** crc32 of a string or buffer, as 8 hex digits. */
export const crcHex = (data: string | Buffer, value = 0): string => zlib.crc32(data, value).toString(16).padStart(8, "0");

/** A file's size and crc32, as recorded in the manifest. */
export interface FileChecksum {
  bytes: number;
  crc: string;
}

/** crc32 over a whole file, read in chunks (files may exceed a Buffer's size). */
export function fileChecksum(file: string): FileChecksum {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(4 << 20);
    let crc = 0;
    let bytes = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      crc = zlib.crc32(buf.subarray(0, n), crc);
      bytes += n;
    }
    return { bytes, crc: crc.toString(16).padStart(8, "0") };
  } finally {
    fs.closeSync(fd);
  }
}

/** The crc32 loop of {@link fileChecksum}, run in a worker thread (CommonJS, evaluated from this string). */
const CRC_WORKER = `
const fs = require("node:fs");
const zlib = require("node:zlib");
const { parentPort, workerData } = require("node:worker_threads");
const fd = fs.openSync(workerData, "r");
try {
  const buf = Buffer.allocUnsafe(4 << 20);
  let crc = 0;
  let bytes = 0;
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    crc = zlib.crc32(buf.subarray(0, n), crc);
    bytes += n;
  }
  parentPort.postMessage({ bytes, crc: crc.toString(16).padStart(8, "0") });
} finally {
  fs.closeSync(fd);
}`;

/** Files smaller than this are checked on the calling thread (a worker costs more to start). */
const WORKER_MIN_BYTES = 16 << 20;

/**
 * {@link fileChecksum} off the main thread: a large file's crc32 is computed
 * in a worker thread, so the event loop (and the rest of an open) runs meanwhile.
 */
export async function fileChecksumAsync(file: string): Promise<FileChecksum> {
  const size = (await fs.promises.stat(file)).size;
  if (size < WORKER_MIN_BYTES) return fileChecksum(file);
  return new Promise<FileChecksum>((resolve, reject) => {
    // execArgv: [] — the worker needs no loader hooks (tsx, test runners) the process was started with.
    const worker = new Worker(CRC_WORKER, { eval: true, workerData: file, execArgv: [] });
    let result: FileChecksum | undefined;
    worker.once("message", (m: FileChecksum) => (result = m));
    worker.once("error", reject);
    worker.once("exit", () => (result ? resolve(result) : reject(new Error(`checksum of ${file} failed`))));
  });
}

/** {@link verifyFile}, with the crc32 computed off the main thread. */
export async function verifyFileAsync(file: string, expected: FileChecksum, what: string): Promise<void> {
  if (!fs.existsSync(file)) throw new CorruptStoreError(`${what} ${file} is missing (the manifest lists it)`, file);
  checkAgainst(file, await fileChecksumAsync(file), expected, what);
}

function checkAgainst(file: string, actual: FileChecksum, expected: FileChecksum, what: string): void {
  if (actual.bytes !== expected.bytes) {
    throw new CorruptStoreError(`${what} ${file} is ${actual.bytes} bytes, the manifest recorded ${expected.bytes}: truncated or overwritten`, file);
  }
  if (actual.crc !== expected.crc) throw new CorruptStoreError(`${what} ${file} is corrupt (checksum ${actual.crc}, the manifest recorded ${expected.crc})`, file);
}

/**
 * Checks a snapshot file against the size and crc32 the manifest recorded,
 * before anything parses it (hnswlib trusts its input: a flipped byte can
 * crash the process or silently change vectors).
 * @throws {CorruptStoreError} naming the file.
 */
export function verifyFile(file: string, expected: FileChecksum, what: string): void {
  if (!fs.existsSync(file)) throw new CorruptStoreError(`${what} ${file} is missing (the manifest lists it)`, file);
  checkAgainst(file, fileChecksum(file), expected, what);
}
