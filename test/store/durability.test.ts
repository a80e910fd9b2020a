import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { CorruptStoreError, EmbeddingError, HNSWStore, IncompatibleStoreError, StoreLockedError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { spawnStoreChild, waitForExit, waitForLine } from "../helpers/spawn-child.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dirForTest(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

const embeddings = new FakeEmbeddings({ dims: 16 });
function openStore(dir: string, extra: Partial<ConstructorParameters<typeof HNSWStore>[0]> = {}) {
  const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] }, ...extra });
  cleanups.push(() => store.close());
  return store;
}

/** Writes `n` items from a child process that exits without close(). */
async function crashAfterWrites(dir: string, n: number): Promise<void> {
  const child = spawnStoreChild([dir, "write-exit", String(n)]);
  expect(await waitForExit(child)).toBe(0);
}

describe("persistence", () => {
  it("reopens with the same items, Date timestamps and search ranking", async () => {
    const dir = dirForTest();
    const a = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } });
    const texts = ["vegetarian since 2019", "allergic to penicillin", "prefers email over phone", "lives in Lisbon", "has two cats"];
    for (const [i, text] of texts.entries()) await a.put(["users", "42"], `m${i}`, { text, i });
    await a.delete(["users", "42"], "m4");
    const before = await a.search(["users"], { query: "penicillin email", limit: 10 });
    const item = await a.get(["users", "42"], "m1");
    await a.close();

    const b = openStore(dir);
    const after = await b.search(["users"], { query: "penicillin email", limit: 10 });
    expect(after.map((r) => [r.key, r.score])).toEqual(before.map((r) => [r.key, r.score]));
    const again = await b.get(["users", "42"], "m1");
    expect(again).toEqual(item);
    expect(again!.createdAt).toBeInstanceOf(Date);
    expect(await b.get(["users", "42"], "m4")).toBeNull();
    expect(await b.count()).toBe(4);
  });

  it("restores efSearch after loading (hnswlib resets it to 10)", async () => {
    const dir = dirForTest();
    const a = new HNSWStore({ path: dir, index: { dims: 16, embeddings }, hnsw: { efSearch: 77 } });
    await a.put(["x"], "k", { text: "t" });
    await a.close();
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8"));
    expect(manifest.index).toMatchObject({ space: "cosine", dims: 16, M: 16, efConstruction: 200, efSearch: 77, embedder: "FakeEmbeddings:fake-bag-of-words-16" });
    const b = openStore(dir, { index: { dims: 16, embeddings } });
    expect((await b.stats()).efSearch).toBe(77);
  });

  it("replays the log after a crash, and drops a torn last line", async () => {
    const dir = dirForTest();
    await crashAfterWrites(dir, 20);
    const wal = fs.readdirSync(dir).find((f) => f.startsWith("wal-"))!;
    // A write cut short by SIGKILL ends at a page boundary.
    const size = fs.statSync(path.join(dir, wal)).size;
    fs.appendFileSync(path.join(dir, wal), '1234abcd {"seq":99,"at":1,"ops":[{"t":"put","ns":["users","cra'.padEnd(4096 - (size % 4096) + (size % 4096 > 4000 ? 4096 : 0), "x"));
    const warnings: string[] = [];
    const store = openStore(dir, { logger: { warn: (m: string) => warnings.push(m) } });
    expect(await store.count(["users", "crash"])).toBe(20);
    expect((await store.get(["users", "crash"], "k19"))?.value).toEqual({ text: "memory number 19", i: 19 });
    expect(warnings.join("\n")).toMatch(/torn last log record/);
    const res = await store.search(["users"], { query: "memory number 7", limit: 1 });
    expect(res[0].key).toBe("k7");
  });

  it("fails with the file named when a log line in the middle is corrupt", async () => {
    const dir = dirForTest();
    await crashAfterWrites(dir, 5);
    const wal = path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith("wal-"))!);
    const lines = fs.readFileSync(wal, "utf8").split("\n");
    lines[2] = lines[2].replace("memory number", "memory numbex");
    fs.writeFileSync(wal, lines.join("\n"));
    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } });
    const err = await store.open().catch((e) => e);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.message).toContain(wal);
    expect(err.message).toMatch(/line 3/); // line 1 is the header
    // The failed open released the lock: a fixed directory opens again.
    lines.splice(2); // the header and the first record
    fs.writeFileSync(wal, lines.join("\n") + "\n");
    const again = openStore(dir);
    expect(await again.count()).toBe(1);
  });

  it("fails with the file named when the snapshot is truncated or the index file is corrupt", async () => {
    const dir = dirForTest();
    const a = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } });
    for (let i = 0; i < 10; i++) await a.put(["n"], `k${i}`, { text: `item ${i}` });
    await a.close();
    const items = path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith("items-"))!);
    const vectors = path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith("vectors-"))!);
    const original = fs.readFileSync(items);
    fs.writeFileSync(items, original.subarray(0, original.length - 30));
    let err = await new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } }).open().catch((e) => e);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.file).toBe(items);
    fs.writeFileSync(items, original);
    fs.writeFileSync(vectors, fs.readFileSync(vectors).subarray(0, 100));
    err = await new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } }).open().catch((e) => e);
    expect(err).toBeInstanceOf(CorruptStoreError);
    expect(err.message).toContain(vectors);
  });

  it("refuses a directory written by a newer format version", async () => {
    const dir = dirForTest();
    const a = new HNSWStore({ path: dir });
    await a.put(["v"], "k", { x: 1 });
    await a.close();
    const file = path.join(dir, "store.json");
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    const { checksum: _, ...rest } = m;
    const next = { ...rest, formatVersion: 99 };
    fs.writeFileSync(file, JSON.stringify({ ...next, checksum: zlib.crc32(JSON.stringify(next)).toString(16).padStart(8, "0") }));
    const err = await new HNSWStore({ path: dir }).open().catch((e) => e);
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    expect(err.message).toMatch(/format version 99/);
  });

  it("refuses other dims or another embedder, and reindex() switches embedder", async () => {
    const dir = dirForTest();
    const a = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } });
    for (let i = 0; i < 30; i++) await a.put(["r"], `k${i}`, { text: `fact ${i} about cats` });
    await a.close();
    const other32 = new FakeEmbeddings({ dims: 32, model: "other-model" });
    const other16 = new FakeEmbeddings({ dims: 16, model: "other-model" });
    let err = await new HNSWStore({ path: dir, index: { dims: 32, embeddings: other32 } }).open().catch((e) => e);
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    expect(err.message).toMatch(/16-dim vectors, but index.dims is 32/);
    err = await new HNSWStore({ path: dir, index: { dims: 16, embeddings: other16 } }).open().catch((e) => e);
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    expect(err.message).toMatch(/FakeEmbeddings:fake-bag-of-words-16.*FakeEmbeddings:other-model/);

    const b = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } });
    const progress: [number, number][] = [];
    await b.reindex({ index: { dims: 32, embeddings: other32, fields: ["text"] }, batchSize: 8, onProgress: (d, t) => progress.push([d, t]) });
    expect(progress).toEqual([[8, 30], [16, 30], [24, 30], [30, 30]]);
    expect((await b.search(["r"], { query: "fact 7 about cats", limit: 1 }))[0].key).toBe("k7");
    await b.close();
    err = await new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] } }).open().catch((e) => e);
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    const c = openStore(dir, { index: { dims: 32, embeddings: other32, fields: ["text"] } });
    expect((await c.search(["r"], { query: "fact 7 about cats", limit: 1 }))[0].key).toBe("k7");
    expect((await c.stats()).vectors).toBe(30);
  });

  it("changes nothing when reindex() fails part way", async () => {
    const dir = dirForTest();
    const store = openStore(dir);
    for (let i = 0; i < 20; i++) await store.put(["r"], `k${i}`, { text: `fact ${i} about dogs` });
    const failing = new FakeEmbeddings({ dims: 32, model: "flaky" });
    failing.failWhen = (t) => t.includes("fact 13");
    const err = await store.reindex({ index: { dims: 32, embeddings: failing, fields: ["text"] }, batchSize: 4 }).catch((e) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    await store.put(["r"], "new", { text: "a new fact about cats" });
    expect((await store.search(["r"], { query: "new fact about cats", limit: 1 }))[0].key).toBe("new");
    expect((await store.stats()).vectors).toBe(21);
    await store.close();
    const again = openStore(dir);
    expect(await again.count()).toBe(21);
  });

  it("purges deleted data from every file on compaction", async () => {
    const dir = dirForTest();
    const store = openStore(dir, { compactAfterBytes: 1 << 30 });
    const secret = (i: number) => `zanzibarian secret fact ${i}`;
    for (let i = 0; i < 20; i++) await store.put(["users", "42"], `s${i}`, { text: secret(i) });
    for (let i = 0; i < 20; i++) await store.put(["users", "7"], `o${i}`, { text: `ordinary note ${i}` });
    await store.compact();
    const vectorBytes = (i: number) => Buffer.from(new Float32Array(embeddings.embedText(secret(i))).buffer);
    const vectorBase64 = (i: number) => vectorBytes(i).toString("base64");
    await store.search(["users", "42"], { query: "zanzibarian secret fact 5" });
    const everything = () => fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)));
    expect(everything().some((b) => b.includes("zanzibarian"))).toBe(true);
    expect(everything().some((b) => b.includes(vectorBytes(3)))).toBe(true);
    expect(everything().some((b) => b.includes(vectorBase64(3)))).toBe(true); // the embedding cache

    expect(await store.deleteNamespace(["users", "42"])).toBe(20);
    await store.compact();
    for (const b of everything()) {
      expect(b.includes("zanzibarian")).toBe(false);
      for (let i = 0; i < 20; i++) {
        expect(b.includes(vectorBytes(i))).toBe(false);
        expect(b.includes(vectorBase64(i))).toBe(false);
      }
    }
    expect(await store.count(["users", "7"])).toBe(20);
    expect((await store.search(["users", "7"], { query: "ordinary note 3", limit: 1 }))[0].key).toBe("o3");
  });
});

describe("capacity and labels", () => {
  it("grows the index by itself and reuses deleted labels", async () => {
    const dir = dirForTest();
    const emb = new FakeEmbeddings({ dims: 8 });
    const store = new HNSWStore({ path: dir, index: { dims: 8, embeddings: emb, fields: ["text"] }, hnsw: { initialCapacity: 16, M: 8, efConstruction: 32 } });
    cleanups.push(() => store.close());
    const put = (from: number, to: number) =>
      store.batch(Array.from({ length: to - from }, (_, j) => ({ namespace: ["g"], key: `k${from + j}`, value: { text: `word${from + j} common` } })));
    await put(0, 3000);
    let stats = await store.stats();
    expect(stats.vectors).toBe(3000);
    expect(stats.capacity).toBeGreaterThanOrEqual(3000);
    await store.batch(Array.from({ length: 1500 }, (_, j) => ({ namespace: ["g"], key: `k${j}`, value: null })));
    stats = await store.stats();
    expect(stats.deletedLabels).toBe(1500);
    const capacity = stats.capacity;
    await put(3000, 4500);
    stats = await store.stats();
    expect(stats.deletedLabels).toBe(0);
    expect(stats.capacity).toBe(capacity);
    expect(stats.vectors).toBe(3000);
    const hit = await store.search(["g"], { query: "word4321", limit: 1 });
    expect(hit[0].key).toBe("k4321");
    await store.close();
    const again = openStore(dir, { index: { dims: 8, embeddings: emb, fields: ["text"] } });
    expect(await again.count()).toBe(3000);
    expect((await again.search(["g"], { query: "word4321", limit: 1 }))[0].key).toBe("k4321");
  });
});

describe("crash safety", () => {
  it("keeps every acknowledged write when the writer is killed with SIGKILL", async () => {
    const dir = dirForTest();
    const child = spawnStoreChild([dir, "write-forever"]);
    let lastAck = -1;
    child.stdout!.on("data", (d: Buffer) => {
      for (const m of d.toString().matchAll(/ack (\d+)/g)) lastAck = Math.max(lastAck, Number(m[1]));
    });
    await waitForLine(child, /ack 150/);
    child.kill("SIGKILL");
    await waitForExit(child);
    expect(lastAck).toBeGreaterThanOrEqual(150);
    const store = openStore(dir);
    for (let i = 0; i <= lastAck; i++) {
      const item = await store.get(["users", "crash"], `k${i}`);
      expect(item?.value.i, `acknowledged write k${i}`).toBe(i);
    }
    expect((await store.search(["users", "crash"], { query: "memory number 42", limit: 1 }))[0].key).toBe("k42");
  });
});

describe("one writer per directory", () => {
  it("refuses a second store on the same path in this process", async () => {
    const dir = dirForTest();
    const a = openStore(dir);
    await a.open();
    const err = await new HNSWStore({ path: dir }).open().catch((e) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect(err.message).toContain(dir);
    expect(err.pid).toBe(process.pid);
    await a.close();
    const b = openStore(dir);
    await b.open();
  });

  it("refuses a store held by another live process, naming its pid, and takes over a dead one's lock", async () => {
    const dir = dirForTest();
    const child = spawnStoreChild([dir, "hold"]);
    cleanups.push(() => void child.kill("SIGKILL"));
    await waitForLine(child, /open/);
    const err = await new HNSWStore({ path: dir }).open().catch((e) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect(err.pid).toBe(child.pid);
    expect(err.message).toContain(`process ${child.pid}`);
    child.kill("SIGKILL");
    await waitForExit(child);
    expect(fs.existsSync(path.join(dir, "LOCK"))).toBe(true); // left behind by the dead process
    const store = openStore(dir);
    await store.open();
    expect(JSON.parse(fs.readFileSync(path.join(dir, "LOCK"), "utf8")).pid).toBe(process.pid);
  });
});
