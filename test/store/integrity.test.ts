import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CorruptStoreError, HNSWStore } from "../../src/index.js";
import { FORMAT_VERSION } from "../../src/store/hnsw/snapshot.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function newDir(): string {
  const t = tempDir("integrity-");
  cleanups.push(t.cleanup);
  return t.dir;
}

const embeddings = new FakeEmbeddings({ dims: 16 });
const config = { index: { dims: 16, embeddings, fields: ["text"] } };
const open = (dir: string, extra = {}) => new HNSWStore({ path: dir, ...config, ...extra });

/**
 * The directory as a SIGKILL would leave it: the files of a store that is
 * still open, copied aside (the copy's LOCK names this process but nothing
 * here holds it, so it is stale).
 */
async function crashedCopy(items: number, compactFirst = 0): Promise<string> {
  const dir = newDir();
  const a = open(dir);
  for (let i = 0; i < compactFirst; i++) await a.put(["u"], `c${i}`, { text: `compacted ${i}` });
  if (compactFirst) await a.compact();
  for (let i = 0; i < items; i++) await a.put(["u"], `k${i}`, { text: `memory number ${i}` });
  const copy = newDir();
  fs.cpSync(dir, copy, { recursive: true });
  await a.close();
  return copy;
}

async function openError(dir: string): Promise<Error & { file?: string }> {
  const s = open(dir);
  const err = await s.open().then(
    () => undefined,
    (e: Error) => e,
  );
  if (!err) await s.close();
  return err ?? new Error("opened without error");
}

const file = (dir: string, prefix: string) => path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith(prefix))!);

function flip(f: string, offset: number): void {
  const buf = fs.readFileSync(f);
  buf[offset] ^= 0x5a;
  fs.writeFileSync(f, buf);
}

describe("a missing manifest", () => {
  it("is a CorruptStoreError naming store.json, and nothing is deleted", async () => {
    const dir = newDir();
    const a = open(dir);
    for (let i = 0; i < 5; i++) await a.put(["u"], `k${i}`, { text: `t ${i}` });
    await a.close();
    fs.rmSync(path.join(dir, "store.json"));
    const before = fs.readdirSync(dir).sort();
    const err = await openError(dir);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.file).toBe(path.join(dir, "store.json"));
    expect(err.message).toMatch(/items-1\.jsonl/);
    expect(fs.readdirSync(dir).sort()).toEqual(before);
  });

  it("a store that crashed before its first compaction reopens (the manifest is written at creation)", async () => {
    const dir = await crashedCopy(7);
    const s = open(dir);
    expect(await s.count()).toBe(7);
    await s.close();
  });
});

describe("checksums", () => {
  it("a flipped byte anywhere in the vector index is a CorruptStoreError naming it, never handed to hnswlib", async () => {
    const dir = newDir();
    const a = open(dir);
    for (let i = 0; i < 40; i++) await a.put(["u"], `k${i}`, { text: `memory ${i}` });
    await a.close();
    const vectors = file(dir, "vectors-");
    const original = fs.readFileSync(vectors);
    for (const offset of [0, 7, 100, Math.floor(original.length / 2), original.length - 1]) {
      flip(vectors, offset);
      const err = await openError(dir);
      expect(err).toBeInstanceOf(CorruptStoreError);
      expect(err.file).toBe(vectors);
      fs.writeFileSync(vectors, original);
    }
  });

  it("a flipped byte in the items file is a CorruptStoreError naming it (not a TypeError)", async () => {
    const dir = newDir();
    const a = open(dir);
    for (let i = 0; i < 10; i++) await a.put(["u"], `k${i}`, { text: `memory ${i}` });
    await a.close();
    const items = file(dir, "items-");
    const original = fs.readFileSync(items);
    // Inside the first item's namespace (the scan trips on it too), and inside a value (which the open does not parse).
    for (const offset of [3, original.indexOf("memory 4") + 2]) {
      flip(items, offset);
      const err = await openError(dir);
      expect(err).toBeInstanceOf(CorruptStoreError);
      expect(err.file).toBe(items);
      expect(err.message).toMatch(/is corrupt \(checksum [0-9a-f]{8}, the manifest recorded [0-9a-f]{8}\)/);
      fs.writeFileSync(items, original);
    }
  });

  it("a flipped manifest is a CorruptStoreError, not an IncompatibleStoreError", async () => {
    const dir = newDir();
    const a = open(dir);
    await a.put(["u"], "k", { text: "x" });
    await a.close();
    const m = path.join(dir, "store.json");
    const text = fs.readFileSync(m, "utf8");
    fs.writeFileSync(m, text.replace(`"formatVersion": ${FORMAT_VERSION}`, "\"formatVersion\": 9"));
    const err = await openError(dir);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.file).toBe(m);
  });
});

describe("the log's extent", () => {
  it("a missing log below the manifest's position is an error", async () => {
    const dir = await crashedCopy(5, 3);
    fs.rmSync(file(dir, "wal-"));
    const err = await openError(dir);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.message).toMatch(/missing/);
  });

  it("a log truncated to 0 bytes is an error, not half the items", async () => {
    const dir = await crashedCopy(5);
    fs.truncateSync(file(dir, "wal-"), 0);
    expect(await openError(dir)).toBeInstanceOf(CorruptStoreError);
  });

  it("a mid-file truncation is an error, not a torn last record", async () => {
    const dir = await crashedCopy(30);
    const wal = file(dir, "wal-");
    const buf = fs.readFileSync(wal);
    let cut = Math.floor(buf.length / 2);
    while (cut % 4096 === 0 || buf[cut - 1] === 10) cut++; // inside a record (a cut between records is undetectable)
    fs.truncateSync(wal, cut);
    const err = await openError(dir);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.message).toMatch(/shortened/);
  });

  it("a torn append (cut at a page boundary) is dropped with a warning", async () => {
    const dir = await crashedCopy(20);
    const wal = file(dir, "wal-");
    const size = fs.statSync(wal).size;
    const partial = '1234abcd {"seq":99,"at":1,"ops":[{"t":"put","ns":["u"],"key":"torn","value":{"text":"';
    fs.appendFileSync(wal, partial.padEnd(4096 - (size % 4096) + (size % 4096 > 4000 ? 4096 : 0), "x"));
    expect(fs.statSync(wal).size % 4096).toBe(0);
    const warnings: string[] = [];
    const s = open(dir, { logger: { warn: (w: string) => warnings.push(w) } });
    expect(await s.count()).toBe(20);
    expect(warnings.join()).toMatch(/torn/);
    await s.close();
  });

  it("still opens a format-1 directory (no checksums, no log header)", async () => {
    const dir = await crashedCopy(4, 3);
    const m = path.join(dir, "store.json");
    const { checksum: _c, files: _f, ...v1 } = JSON.parse(fs.readFileSync(m, "utf8"));
    fs.writeFileSync(m, JSON.stringify({ ...v1, formatVersion: 1 }));
    const wal = file(dir, "wal-");
    fs.writeFileSync(wal, fs.readFileSync(wal, "utf8").split("\n").slice(1).join("\n"));
    const s = open(dir);
    expect(await s.count()).toBe(7);
    await s.close();
    expect(JSON.parse(fs.readFileSync(m, "utf8")).formatVersion).toBe(FORMAT_VERSION);
  });
});
