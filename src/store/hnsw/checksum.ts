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

/** The worker of {@link fileChecksumAsync}: {@link fileChecksum}'s loop, posting `{ bytes, crc }` or `{ error }`. */
const CHECKSUM_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const zlib = require("node:zlib");
try {
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
  }
} catch (err) {
  parentPort.postMessage({ error: String(err && err.message || err) });
}
`;

/**
 * {@link fileChecksum} on a worker thread: opening a store checks its
 * index (220 MB at 100k 512-d vectors, ~0.15 s of crc32) there, on the other
 * core, while the main thread decodes the items.
 */
export function fileChecksumAsync(file: string): Promise<FileChecksum> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHECKSUM_WORKER, { eval: true, workerData: file });
    let done = false;
    worker.once("message", (m: FileChecksum | { error: string }) => {
      done = true;
      if ("error" in m) reject(new Error(`cannot read ${file}: ${m.error}`));
      else resolve(m);
    });
    worker.once("error", (err) => {
      done = true;
      reject(err);
    });
    worker.once("exit", (code) => {
      if (!done) reject(new Error(`the checksum worker for ${file} stopped (exit code ${code})`));
    });
  });
}

/** {@link verifyFile}, with the file read off the main thread. */
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
