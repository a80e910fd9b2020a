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

/** The worker of {@link fileChecksumsAsync}: {@link fileChecksum}'s loop per file, posting `{ i, bytes, crc }` or `{ i, error }` as each is done. */
const CHECKSUM_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const zlib = require("node:zlib");
const buf = Buffer.allocUnsafe(4 << 20);
workerData.forEach((file, i) => {
  try {
    const fd = fs.openSync(file, "r");
    try {
      let crc = 0;
      let bytes = 0;
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        crc = zlib.crc32(buf.subarray(0, n), crc);
        bytes += n;
      }
      parentPort.postMessage({ i, bytes, crc: crc.toString(16).padStart(8, "0") });
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    parentPort.postMessage({ i, error: String((err && err.message) || err) });
  }
});
`;

/**
 * {@link fileChecksum} of each file, in order, on one worker thread: opening
 * a store checks its items (20 MB at 100k items) and index (220 MB at 100k
 * 512-d vectors; ~0.15 s of crc32) there, on the other core, while the main
 * thread scans the items. Each promise settles as soon as its file is done.
 */
export function fileChecksumsAsync(files: string[]): Promise<FileChecksum>[] {
  const settle = files.map(() => {
    let resolve!: (sum: FileChecksum) => void;
    let reject!: (err: Error) => void;
    const promise = new Promise<FileChecksum>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined); // the caller may stop waiting for a file after another failed
    return { promise, resolve, reject, done: false };
  });
  const failAll = (err: Error) => settle.filter((s) => !s.done).forEach((s) => ((s.done = true), s.reject(err)));
  const worker = new Worker(CHECKSUM_WORKER, { eval: true, workerData: files });
  worker.on("message", (m: { i: number; bytes: number; crc: string } | { i: number; error: string }) => {
    const s = settle[m.i]!;
    s.done = true;
    if ("error" in m) s.reject(new Error(`cannot read ${files[m.i]}: ${m.error}`));
    else s.resolve({ bytes: m.bytes, crc: m.crc });
  });
  worker.once("error", failAll);
  worker.once("exit", (code) => failAll(new Error(`the checksum worker stopped (exit code ${code}) before it was done`)));
  return settle.map((s) => s.promise);
}

/** {@link fileChecksum} on a worker thread (see {@link fileChecksumsAsync}). */
export function fileChecksumAsync(file: string): Promise<FileChecksum> {
  return fileChecksumsAsync([file])[0]!;
}

/** {@link verifyFile}, with the checksum taken off the main thread (`actual`, from {@link fileChecksumsAsync}). */
export async function verifyFileAsync(file: string, expected: FileChecksum, what: string, actual: Promise<FileChecksum>): Promise<void> {
  if (!fs.existsSync(file)) throw new CorruptStoreError(`${what} ${file} is missing (the manifest lists it)`, file);
  checkAgainst(file, await actual, expected, what);
}

/** @throws {CorruptStoreError} when `actual` is not what the manifest recorded. */
export function checkAgainst(file: string, actual: FileChecksum, expected: FileChecksum, what: string): void {
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
