import fs from "node:fs";
import path from "node:path";

/** fsyncs a directory, so that renames and unlinks inside it are durable. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync directories; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Writes `data` to `file` atomically: temporary file, fsync, rename. */
export function writeFileAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

export function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Writes a whole buffer to a file descriptor (looping over short writes). */
export function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
}

// ---- The same, off the event loop (libuv threadpool): used by compaction ----

/** fsyncs a file's data and metadata without blocking the event loop. */
export async function fsyncFileAsync(file: string): Promise<void> {
  const h = await fs.promises.open(file, "r+");
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/** fsyncs a directory without blocking the event loop (see {@link fsyncDir}). */
export async function fsyncDirAsync(dir: string): Promise<void> {
  let h: fs.promises.FileHandle | undefined;
  try {
    h = await fs.promises.open(dir, "r");
    await h.sync();
  } catch {
    // Some platforms cannot fsync directories; the rename is still atomic.
  } finally {
    await h?.close();
  }
}

/** {@link writeFileAtomic} without blocking the event loop. */
export async function writeFileAtomicAsync(file: string, data: string | Buffer): Promise<void> {
  const tmp = `${file}.tmp`;
  const h = await fs.promises.open(tmp, "w");
  try {
    await h.writeFile(data);
    await h.sync();
  } finally {
    await h.close();
  }
  await fs.promises.rename(tmp, file);
  await fsyncDirAsync(path.dirname(file));
}

/** Writes a whole buffer through a file handle (looping over short writes). */
export async function writeAllAsync(h: fs.promises.FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) off += (await h.write(buf, off, buf.length - off)).bytesWritten;
}
