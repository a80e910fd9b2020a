import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import { EncryptionError, InvalidArgumentError } from "../errors.js";

/** A 32-byte key: a Buffer, or a string of 64 hex or 44 base64 characters. */
export type EncryptionKey = Buffer | Uint8Array | string;

const ALGORITHM = "aes-256-gcm";

/** Turns a key option into 32 bytes, or a named error. */
export async function resolveKey(option: EncryptionKey | (() => EncryptionKey | Promise<EncryptionKey>)): Promise<Buffer> {
  let raw: EncryptionKey;
  try {
    raw = typeof option === "function" ? await option() : option;
  } catch (err) {
    throw new EncryptionError(`the encryption key provider failed: ${(err as Error)?.message ?? String(err)}`);
  }
  let key: Buffer | undefined;
  if (typeof raw === "string") {
    if (/^[0-9a-fA-F]{64}$/.test(raw)) key = Buffer.from(raw, "hex");
    else if (/^[A-Za-z0-9+/]{43}=?$/.test(raw)) key = Buffer.from(raw, "base64");
  } else if (raw instanceof Uint8Array) {
    key = Buffer.from(raw);
  }
  if (!key || key.length !== 32) {
    throw new InvalidArgumentError("encryption.key must be 32 bytes: a Buffer, or 64 hex / 44 base64 characters (e.g. randomBytes(32))");
  }
  return key;
}

/** AES-256-GCM: `nonce(12) | ciphertext | tag(16)`, with `aad` authenticated. */
export function aeadSeal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const nonce = randomBytes(12);
  const c = createCipheriv(ALGORITHM, key, nonce);
  c.setAAD(Buffer.from(aad));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

/**
 * {@link aeadSeal} piece by piece, for data too big to seal in one call
 * without blocking: `head`, then `update` of each chunk in order, then
 * `final()` produce exactly the bytes `aeadSeal` would.
 */
export function aeadSealer(key: Buffer, aad: string): { head: Buffer; update(chunk: Buffer): Buffer; final(): Buffer } {
  const nonce = randomBytes(12);
  const c = createCipheriv(ALGORITHM, key, nonce);
  c.setAAD(Buffer.from(aad));
  return { head: nonce, update: (chunk) => c.update(chunk), final: () => Buffer.concat([c.final(), c.getAuthTag()]) };
}

/** Opens what {@link aeadSeal} sealed; `undefined` when it fails authentication. */
export function aeadOpen(key: Buffer, sealed: Buffer, aad: string): Buffer | undefined {
  if (sealed.length < 28) return undefined;
  try {
    const d = createDecipheriv(ALGORITHM, key, sealed.subarray(0, 12));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
  } catch {
    return undefined;
  }
}

/** Bytes read and deciphered at a time by {@link aeadOpenFile}. */
const FILE_CHUNK = 4 * 1024 * 1024;

/**
 * Opens a file sealed by {@link aeadSeal} into the open file `outFd`, a chunk
 * at a time, so no copy of the whole file is ever held in memory. Returns
 * false when it fails authentication: the caller must then discard what was
 * written (it is unauthenticated) and never read it.
 */
export function aeadOpenFile(key: Buffer, file: string, outFd: number, aad: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    if (size < 28) return false;
    const head = Buffer.alloc(12);
    const tag = Buffer.alloc(16);
    if (fs.readSync(fd, head, 0, 12, 0) !== 12 || fs.readSync(fd, tag, 0, 16, size - 16) !== 16) return false;
    const d = createDecipheriv(ALGORITHM, key, head);
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(tag);
    const chunk = Buffer.allocUnsafe(Math.min(FILE_CHUNK, Math.max(1, size - 28)));
    for (let at = 12; at < size - 16; ) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - 16 - at), at);
      if (n <= 0) return false;
      writeAllSync(outFd, d.update(chunk.subarray(0, n)));
      at += n;
    }
    try {
      writeAllSync(outFd, d.final());
    } catch {
      return false;
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

function writeAllSync(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off, buf.length - off);
}
