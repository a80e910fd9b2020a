import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { EncryptionError } from "../../errors.js";
import zlib from "node:zlib";
import { aeadOpen, aeadSeal, aeadSealer, aeadOpenFile, resolveKey, type EncryptionKey } from "../aead.js";
import { isAlive } from "../../process-alive.js";
import type { FileChecksum } from "./checksum.js";
import { writeAllAsync } from "./files.js";
import { yieldToLoop } from "../../time-slice.js";

export type { EncryptionKey };

/** Encryption at rest for `HNSWStore`. */
export interface EncryptionOptions {
  /**
   * The AES-256 key, or a function that returns it (a KMS call), called once
   * at each open and at `rekey()`.
   */
  key: EncryptionKey | (() => EncryptionKey | Promise<EncryptionKey>);
  /**
   * Encrypt a plain directory in place at open (one compaction). Without it,
   * opening a plain directory that holds data with a key is an error.
   * @default false
   */
  migratePlaintext?: boolean;
  /**
   * A RAM-backed (tmpfs) directory where hnswlib's index file exists, in clear,
   * for the moment it takes to write or read it. Must be tmpfs: checked at open.
   * @default "/dev/shm"
   */
  ramDir?: string;
}

const TMPFS_MAGIC = 0x01021994;
const ALGORITHM = "aes-256-gcm";
const CHECK_TEXT = "langgraph-hnsw-memory key check";

/** What the manifest records about encryption: never the key. */
export interface EncryptionManifest {
  algorithm: typeof ALGORITHM;
  /** The check text sealed under the key: opening it proves the key is right. */
  check: string;
}

/**
 * AES-256-GCM for the store's files. Lines (log records, items, cache
 * entries) are sealed one by one as base64 `nonce | ciphertext | tag`, so
 * line framing, torn-tail detection and checksums work as in a plain store;
 * whole files (the HNSW index) are sealed as one block. Each seal uses a fresh
 * random 96-bit nonce; the file kind is authenticated data, so a sealed line
 * cannot be moved into another kind of file.
 */
export class FileCipher {
  private constructor(
    private readonly key: Buffer,
    readonly ramDir: string,
  ) {}

  static async create(options: EncryptionOptions): Promise<FileCipher> {
    const key = await resolveKey(options.key);
    const ramDir = options.ramDir ?? "/dev/shm";
    let type: number;
    try {
      type = Number(fs.statfsSync(ramDir).type);
    } catch (err) {
      throw new EncryptionError(`encryption needs a RAM-backed tmpfs directory for hnswlib's index file; ${ramDir} is unusable: ${(err as Error).message}`);
    }
    if (type !== TMPFS_MAGIC) {
      throw new EncryptionError(`encryption needs a RAM-backed tmpfs directory for hnswlib's index file; ${ramDir} is not tmpfs (set encryption.ramDir)`);
    }
    return new FileCipher(key, ramDir);
  }

  seal(plain: Buffer, kind: string): Buffer {
    return aeadSeal(this.key, plain, kind);
  }

  /**
   * Seals the file `from` into `to` (the same bytes as `seal(readFile(from))`)
   * in 1 MiB pieces read and written through the threadpool, so a big index
   * never blocks the event loop; fsyncs `to` and returns its size and crc32.
   */
  async sealFile(from: string, to: string, kind: string): Promise<FileChecksum> {
    const sealer = aeadSealer(this.key, kind);
    const src = await fs.promises.open(from, "r");
    let crc = 0;
    let bytes = 0;
    try {
      const dst = await fs.promises.open(to, "w");
      try {
        const put = async (buf: Buffer) => {
          if (buf.length === 0) return;
          await writeAllAsync(dst, buf);
          crc = zlib.crc32(buf, crc);
          bytes += buf.length;
        };
        await put(sealer.head);
        const buf = Buffer.allocUnsafe(1 << 20);
        for (;;) {
          const { bytesRead } = await src.read(buf, 0, buf.length, null);
          if (bytesRead === 0) break;
          await put(sealer.update(buf.subarray(0, bytesRead)));
          await yieldToLoop();
        }
        await put(sealer.final());
        await dst.sync();
      } finally {
        await dst.close();
      }
    } finally {
      await src.close();
    }
    return { bytes, crc: crc.toString(16).padStart(8, "0") };
  }

  /** Opens a sealed block; `undefined` when it fails authentication. */
  open(sealed: Buffer, kind: string): Buffer | undefined {
    return aeadOpen(this.key, sealed, kind);
  }

  /**
   * Opens the sealed file `file` into the open file `outFd` chunk by chunk
   * (never a whole copy in memory); false when it fails authentication, and
   * what was written must then be discarded unread.
   */
  openFileTo(file: string, outFd: number, kind: string): boolean {
    return aeadOpenFile(this.key, file, outFd, kind);
  }

  sealLine(plain: string, kind: string): string {
    return this.seal(Buffer.from(plain, "utf8"), kind).toString("base64");
  }

  /** Opens a sealed line; `undefined` when it is not one or fails authentication. */
  openLine(sealed: string, kind: string): string | undefined {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(sealed)) return undefined;
    return this.open(Buffer.from(sealed, "base64"), kind)?.toString("utf8");
  }

  manifest(): EncryptionManifest {
    return { algorithm: ALGORITHM, check: this.sealLine(CHECK_TEXT, "check") };
  }

  /** Throws `EncryptionError` unless this cipher's key opened `m.check`. */
  verify(m: EncryptionManifest, dir: string): void {
    if (m.algorithm !== ALGORITHM) throw new EncryptionError(`store directory ${dir} is encrypted with ${String(m.algorithm)}, which this version cannot read`);
    if (this.openLine(m.check, "check") !== CHECK_TEXT) {
      throw new EncryptionError(`wrong encryption key for store directory ${dir}: nothing was read or changed`);
    }
  }

  /**
   * A fresh path for one hnswlib read or write, alone in a new private
   * directory under the RAM directory (mode 0700, named after this process
   * so that another process can remove it once this one is dead). The file
   * is created empty with mode 0600 before hnswlib opens it (hnswlib
   * truncates it and keeps the mode), so the clear index is never readable
   * by another user, even for a moment. Remove it with {@link releaseRamPath}.
   */
  ramPath(dir: string): string {
    const privateDir = fs.mkdtempSync(path.join(this.ramDir, `lhm-${process.pid}-`));
    fs.chmodSync(privateDir, 0o700);
    const tag = createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 12);
    const file = path.join(privateDir, `${tag}.hnsw`);
    fs.closeSync(fs.openSync(file, "wx", 0o600));
    return file;
  }

  /** Removes a {@link ramPath} file and its private directory. */
  async releaseRamPath(file: string): Promise<void> {
    await fs.promises.rm(path.dirname(file), { recursive: true, force: true });
  }
}

/**
 * Removes what dead processes left in the RAM directory (a crash or SIGKILL
 * between hnswlib's write and the unlink): their private `lhm-<pid>-…`
 * directories, and the loose `lhm-<hash>-<pid>-<rand>.hnsw` files of older
 * versions. Run at the open of every encrypted store that uses the directory.
 */
export function removeStaleRamFiles(ramDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(ramDir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^lhm-[0-9a-f]{12}-(\d+)-[0-9a-f]{12}\.hnsw$/.exec(name) ?? /^lhm-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    try {
      fs.rmSync(path.join(ramDir, name), { recursive: true, force: true });
    } catch {
      // Another user's leftovers (EPERM): theirs to remove; nothing of ours.
    }
  }
}
