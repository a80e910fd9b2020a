import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HNSWStore, CorruptStoreError, EncryptionError, InvalidArgumentError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitForExit, waitForLine } from "../helpers/spawn-child.js";

const DIMS = 16;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const secret = (i: number) => `patient ${i} is allergic to penicillin`;

function setup() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const embeddings = new FakeEmbeddings({ dims: DIMS });
  const open = (key?: Buffer | string, extra: { migratePlaintext?: boolean } = {}) => {
    const store = new HNSWStore({
      path: t.dir,
      index: { dims: DIMS, embeddings, fields: ["text"] },
      encryption: key === undefined ? undefined : { key, ...extra },
    });
    cleanups.push(() => store.close());
    return store;
  };
  /** Every file's bytes. */
  const files = () => fs.readdirSync(t.dir).map((f) => fs.readFileSync(path.join(t.dir, f)));
  const vectorBytes = (text: string) => Buffer.from(new Float32Array(embeddings.embedText(text)).buffer);
  /** Throws unless no file holds any secret text, vector (raw or base64), or the word "penicillin". */
  const expectNoPlaintext = (n: number) => {
    const all = files();
    expect(all.length).toBeGreaterThan(0);
    for (const b of all) {
      expect(b.includes("penicillin")).toBe(false);
      for (let i = 0; i < n; i++) {
        expect(b.includes(vectorBytes(secret(i)))).toBe(false);
        expect(b.includes(vectorBytes(secret(i)).toString("base64"))).toBe(false);
      }
    }
  };
  return { dir: t.dir, open, files, expectNoPlaintext, embeddings };
}

describe("encryption at rest", () => {
  it("no text or vector byte is on disk in clear after puts, after compaction, and after reopen; search still works", async () => {
    const key = randomBytes(32);
    const s = setup();
    const store = s.open(key);
    for (let i = 0; i < 20; i++) await store.put(["users", "42"], `k${i}`, { text: secret(i) });
    s.expectNoPlaintext(20); // the log and cache, before any snapshot
    await store.delete(["users", "42"], "k0");
    await store.compact();
    s.expectNoPlaintext(20);
    expect(fs.readdirSync(s.dir).some((f) => /^vectors-\d+\.hnsw$/.test(f))).toBe(true);
    await store.close();
    s.expectNoPlaintext(20);
    // Nothing left in the RAM directory by this process.
    expect(fs.readdirSync("/dev/shm").filter((f) => f.startsWith("lhm-") && f.includes(`-${process.pid}-`))).toEqual([]);

    const again = s.open(key.toString("hex"));
    expect(await again.count()).toBe(19);
    const hits = await again.search(["users", "42"], { query: secret(7), limit: 1 });
    expect(hits[0].key).toBe("k7");
    expect(hits[0].score).toBeCloseTo(1, 4);
  });

  it("a wrong key or no key is an EncryptionError and changes nothing", async () => {
    const s = setup();
    const store = s.open(randomBytes(32));
    await store.put(["a"], "k", { text: secret(1) });
    await store.close();
    const before = fs.readdirSync(s.dir).map((f) => [f, fs.readFileSync(path.join(s.dir, f)).toString("hex")]);
    await expect(s.open(randomBytes(32)).count()).rejects.toThrow(EncryptionError);
    await expect(s.open(randomBytes(32)).count()).rejects.toThrow(/wrong encryption key/);
    await expect(s.open().count()).rejects.toThrow(/is encrypted/);
    const after = fs.readdirSync(s.dir).map((f) => [f, fs.readFileSync(path.join(s.dir, f)).toString("hex")]);
    expect(after).toEqual(before);
    expect(() => new HNSWStore({ path: s.dir, encryption: { key: "short" } })).not.toThrow(); // checked at open
    await expect(new HNSWStore({ path: s.dir, encryption: { key: "short" } }).count()).rejects.toThrow(InvalidArgumentError);
    await expect(new HNSWStore({ path: s.dir, encryption: { key: () => Promise.reject(new Error("KMS down")) } }).count()).rejects.toThrow(/KMS down/);
  });

  it("a tampered block fails authentication with CorruptStoreError naming the file", async () => {
    const key = randomBytes(32);
    const s = setup();
    const store = s.open(key);
    for (let i = 0; i < 5; i++) await store.put(["a"], `k${i}`, { text: secret(i) });
    await store.close();
    const items = fs.readdirSync(s.dir).find((f) => /^items-\d+\.jsonl$/.test(f))!;
    const file = path.join(s.dir, items);
    const buf = fs.readFileSync(file);
    buf[40] = buf[40] === 65 ? 66 : 65; // stays base64, breaks the tag
    fs.writeFileSync(file, buf);
    await expect(s.open(key).count()).rejects.toThrow(CorruptStoreError);
    await expect(s.open(key).count()).rejects.toThrow(new RegExp(items));
  });

  it("rekey rotates the key: the old key no longer opens the directory, the new one does, nothing in clear", async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const s = setup();
    const store = s.open(oldKey);
    for (let i = 0; i < 10; i++) await store.put(["u"], `k${i}`, { text: secret(i) });
    await store.rekey(newKey);
    await store.put(["u"], "after", { text: secret(10) });
    await store.close();
    s.expectNoPlaintext(11);
    await expect(s.open(oldKey).count()).rejects.toThrow(EncryptionError);
    const reopened = s.open(newKey);
    expect(await reopened.count()).toBe(11);
    expect((await reopened.search(["u"], { query: secret(10), limit: 1 }))[0].key).toBe("after");
  });

  it("encrypts a plain directory in place only when asked (migratePlaintext)", async () => {
    const s = setup();
    const plain = s.open();
    for (let i = 0; i < 8; i++) await plain.put(["u"], `k${i}`, { text: secret(i) });
    await plain.close();
    expect(s.files().some((b) => b.includes("penicillin"))).toBe(true);
    const key = randomBytes(32);
    await expect(s.open(key).count()).rejects.toThrow(/migratePlaintext/);
    const migrated = s.open(key, { migratePlaintext: true });
    expect(await migrated.count()).toBe(8);
    s.expectNoPlaintext(8);
    // The embedding cache came through the migration sealed, not dropped: re-putting the
    // same texts embeds nothing.
    const embedded = vi.spyOn(s.embeddings, "embedDocuments");
    for (let i = 0; i < 8; i++) await migrated.put(["u"], `k${i}`, { text: secret(i) });
    expect(embedded).not.toHaveBeenCalled();
    embedded.mockRestore();
    s.expectNoPlaintext(8);
    const manifest = JSON.parse(fs.readFileSync(path.join(s.dir, "store.json"), "utf8"));
    expect(manifest.encryption.algorithm).toBe("aes-256-gcm");
    expect(JSON.stringify(manifest)).not.toContain(key.toString("hex"));
    await migrated.close();
    expect(await s.open(key).count()).toBe(8);
  });

  it("after a SIGKILL mid-writes: every acknowledged write reopens with the key, and the log is sealed", async () => {
    const key = randomBytes(32).toString("hex");
    const s = setup();
    const root = path.resolve(import.meta.dirname, "../..");
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/helpers/encrypted-child.ts"), s.dir, key], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let acked = -1;
    child.stdout!.on("data", (d: Buffer) => {
      for (const m of d.toString().matchAll(/ack (\d+)/g)) acked = Math.max(acked, Number(m[1]));
    });
    await waitForLine(child, /ack 10/);
    child.kill("SIGKILL");
    await waitForExit(child);
    s.expectNoPlaintext(acked + 1);
    const store = s.open(key);
    for (let i = 0; i <= acked; i++) expect((await store.get(["users", "crash"], `k${i}`))?.value.i).toBe(i);
  });
});
