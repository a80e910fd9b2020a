/** A sealed file opened chunk by chunk (the HNSW index of an encrypted store) into another file. */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { aeadOpenFile, aeadSeal } from "../../src/store/aead.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function openInto(key: Buffer, sealedFile: string, kind: string): { ok: boolean; out: Buffer } {
  const outFile = `${sealedFile}.out`;
  const fd = fs.openSync(outFile, "w");
  let ok: boolean;
  try {
    ok = aeadOpenFile(key, sealedFile, fd, kind);
  } finally {
    fs.closeSync(fd);
  }
  return { ok, out: fs.readFileSync(outFile) };
}

describe("aeadOpenFile", () => {
  it("opens what aeadSeal sealed, across chunk boundaries, and refuses a wrong key, kind, flipped byte or truncation", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sealed-file-"));
    dirs.push(dir);
    const key = randomBytes(32);
    for (const size of [0, 1, 4 * 1024 * 1024 - 1, 4 * 1024 * 1024 + 17, 9 * 1024 * 1024]) {
      const plain = randomBytes(size);
      const file = path.join(dir, `s${size}`);
      fs.writeFileSync(file, aeadSeal(key, plain, "hnsw"));
      const opened = openInto(key, file, "hnsw");
      expect(opened.ok).toBe(true);
      expect(opened.out.equals(plain)).toBe(true);
      expect(openInto(randomBytes(32), file, "hnsw").ok).toBe(false);
      expect(openInto(key, file, "items").ok).toBe(false);
    }
    const file = path.join(dir, "s9437184");
    const sealed = fs.readFileSync(file);
    const flipped = Buffer.from(sealed);
    flipped[5 * 1024 * 1024] ^= 1;
    fs.writeFileSync(file, flipped);
    expect(openInto(key, file, "hnsw").ok).toBe(false);
    fs.writeFileSync(file, sealed.subarray(0, sealed.length - 1));
    expect(openInto(key, file, "hnsw").ok).toBe(false);
    fs.writeFileSync(file, sealed.subarray(0, 20));
    expect(openInto(key, file, "hnsw").ok).toBe(false);
  });
});
