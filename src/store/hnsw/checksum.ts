import fs from "node:fs";
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

/**
 * {@link fileChecksum} without blocking the event loop: the file is read
 * through the threadpool in 4 MiB pieces and each piece's crc32 (about 2 ms)
 * is taken between reads. Measured at open, this beats a worker thread,
 * whose start-up costs more than it saves.
 */
export async function fileChecksumAsync(file: string): Promise<FileChecksum> {
  const h = await fs.promises.open(file, "r");
  try {
    const buf = Buffer.allocUnsafe(4 << 20);
    let crc = 0;
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await h.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      crc = zlib.crc32(buf.subarray(0, bytesRead), crc);
      bytes += bytesRead;
    }
    return { bytes, crc: crc.toString(16).padStart(8, "0") };
  } finally {
    await h.close();
  }
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
