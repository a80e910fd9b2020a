import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { BatchLock } from "../../src/store/hnsw/batch-lock.js";
import { compactionTestHooks } from "../../src/store/hnsw/hnsw-store.js";
import { WriteAheadLog } from "../../src/store/hnsw/write-ahead-log.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { ticks, track } from "../helpers/settle.js";

// FakeEmbeddings is a TEST DOUBLE: meaning is not under test here, only ordering.
const embeddings = new FakeEmbeddings({ dims: 16 });
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  compactionTestHooks.frozen = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

function newDir(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

function openStore(dir: string, extra: Partial<ConstructorParameters<typeof HNSWStore>[0]> = {}): HNSWStore {
  const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] }, ...extra });
  cleanups.push(() => store.close());
  return store;
}

/** Holds the next compaction once it lets readers in (before it writes any file), until `release()`. */
function holdNextCompaction(): { reached: Promise<void>; release: () => void } {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const gate = new Promise<void>((r) => (release = r));
  compactionTestHooks.frozen = async () => {
    compactionTestHooks.frozen = undefined;
    reach();
    await gate;
  };
  return { reached, release };
}

const generation = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).generation as number;

describe("reads during a compaction", () => {
  it("a search, a get and a count issued during a compaction complete before it does, and see every earlier write", async () => {
    const dir = newDir();
    const store = openStore(dir);
    for (let i = 0; i < 30; i++) await store.put(["u", "1"], `k${i}`, { text: `note ${i} about tulips` });
    await store.delete(["u", "1"], "k3");
    const held = holdNextCompaction();
    const compaction = track(store.compact());
    await held.reached;
    const search = await store.search(["u", "1"], { query: "note 7 about tulips", limit: 3 });
    expect(search[0]?.key).toBe("k7");
    expect((await store.get(["u", "1"], "k29"))?.value.text).toBe("note 29 about tulips");
    expect(await store.get(["u", "1"], "k3")).toBeNull();
    expect(await store.count(["u"])).toBe(29);
    expect(compaction.done()).toBe(false);
    held.release();
    await compaction.promise;
    expect(generation(dir)).toBe(1);
  });

  it("a write issued during a compaction waits for it, is applied after it, and survives reopen; a read queued behind that write sees it", async () => {
    const dir = newDir();
    const store = openStore(dir);
    await store.put(["u", "1"], "before", { text: "written before the compaction" });
    const held = holdNextCompaction();
    const compaction = track(store.compact());
    await held.reached;
    // A read queued before the write is held up neither by it nor by the compaction.
    const readBeforeWrite = store.get(["u", "1"], "before");
    const write = track(store.put(["u", "1"], "during", { text: "written during the compaction" }));
    const readAfterWrite = track(store.get(["u", "1"], "during"));
    expect((await readBeforeWrite)?.key).toBe("before");
    await ticks();
    expect(write.done()).toBe(false);
    expect(readAfterWrite.done()).toBe(false);
    held.release();
    await compaction.promise;
    await write.promise;
    expect((await readAfterWrite.promise)?.value.text).toBe("written during the compaction");
    // The write went to the new generation's log, after the snapshot.
    const log = WriteAheadLog.read(path.join(dir, "wal-1.log"), { generation: 1, after: 1 });
    expect(log.records.flatMap((r) => r.ops).some((op) => op.t === "put" && op.key === "during")).toBe(true);
    // Reopen without the final compaction (as after a crash): the log replays it.
    const copy = newDir();
    for (const f of fs.readdirSync(dir)) if (f !== "store.lock" && !f.endsWith(".lock")) fs.copyFileSync(path.join(dir, f), path.join(copy, f));
    await store.close();
    for (const d of [dir, copy]) {
      const again = openStore(d);
      expect((await again.get(["u", "1"], "during"))?.value.text).toBe("written during the compaction");
      expect(await again.count()).toBe(2);
      await again.close();
    }
  });

  it("TTL refreshes made by reads during a compaction are kept in memory and logged after it", async () => {
    const dir = newDir();
    let now = 1_000_000;
    const store = openStore(dir, { ttl: { refreshOnRead: true, sweepIntervalMinutes: 0 }, clock: () => now });
    await store.put(["t"], "a", { text: "expiring" }, undefined, { ttl: 10 });
    const first = (await store.expiryOf(["t"], "a"))!.getTime();
    now += 60_000;
    const held = holdNextCompaction();
    const compaction = track(store.compact());
    await held.reached;
    expect((await store.get(["t"], "a"))?.key).toBe("a"); // refreshes the TTL
    const refreshed = (await store.expiryOf(["t"], "a"))!.getTime();
    expect(refreshed).toBe(first + 60_000);
    held.release();
    await compaction.promise;
    const log = WriteAheadLog.read(path.join(dir, "wal-1.log"), { generation: 1, after: 1 });
    expect(log.records.flatMap((r) => r.ops)).toContainEqual({ t: "touch", ns: ["t"], key: "a", exp: refreshed });
    // Sequence numbers stay contiguous: later writes log and reopen cleanly.
    await store.put(["t"], "b", { text: "later" });
    await store.close();
    const again = openStore(dir, { ttl: { refreshOnRead: false, sweepIntervalMinutes: 0 }, clock: () => now });
    expect((await again.expiryOf(["t"], "a"))?.getTime()).toBe(refreshed);
    expect(await again.count()).toBe(2);
  });
});

describe("compaction threshold relative to the snapshot", () => {
  it("compacts at compactAfterBytes while the snapshot is small, then only once the log reaches compactLogRatio × the snapshot", async () => {
    const dir = newDir();
    const text = (i: number) => `item ${i} ${"padding words ".repeat(20)}`;
    const store = openStore(dir, { compactAfterBytes: 2048, compactLogRatio: 1, embeddingCache: false });
    await store.open();
    let i = 0;
    // Generations 1 and 2 come at compactAfterBytes and at the still small snapshot; generation 3 is measured.
    while (generation(dir) < 3) await store.put(["r"], `k${i}`, { text: text(i++) });
    const files = (await store.stats()).files;
    const snapshotBytes = (files["items-3.jsonl"] ?? 0) + (files["vectors-3.hnsw"] ?? 0);
    expect(snapshotBytes).toBeGreaterThan(3 * 2048);
    let logMax = 0;
    while (generation(dir) === 3) {
      logMax = Math.max(logMax, (await store.stats()).logBytes);
      await store.put(["r"], `k${i}`, { text: text(i++) });
    }
    // The next compaction waited for a log as big as the snapshot, not 2 KiB.
    expect(logMax).toBeGreaterThan(snapshotBytes - 1024);
    expect(logMax).toBeLessThan(snapshotBytes);
  });

  it("rejects a bad compactLogRatio", () => {
    expect(() => new HNSWStore({ compactLogRatio: -1 })).toThrow(/compactLogRatio/);
  });
});

describe("BatchLock", () => {
  it("runs readers together, a writer alone, in arrival order, and lets readers beside a writer that shares", async () => {
    const lock = new BatchLock();
    const log: string[] = [];
    let releaseW1!: () => void;
    let share!: () => void;
    const w1 = lock.run("write", (hold) => {
      log.push("w1 start");
      share = () => hold.shareWithReaders();
      return new Promise<void>((r) => (releaseW1 = r)).then(() => log.push("w1 end"));
    });
    const r1 = lock.run("read", () => log.push("r1"));
    const r2 = lock.run("read", () => log.push("r2"));
    const w2 = lock.run("write", () => log.push("w2"));
    const r3 = lock.run("read", () => log.push("r3"));
    await ticks(5);
    expect(log).toEqual(["w1 start"]);
    share();
    await Promise.all([r1, r2]);
    await ticks(5);
    // w2 waits for w1; r3 waits for w2 (it must see w2's write).
    expect(log).toEqual(["w1 start", "r1", "r2"]);
    releaseW1();
    await Promise.all([w1, w2, r3]);
    expect(log).toEqual(["w1 start", "r1", "r2", "w1 end", "w2", "r3"]);
    expect(lock.pending).toBe(0);
  });

  it("a writer waits for the readers running before it", async () => {
    const lock = new BatchLock();
    const log: string[] = [];
    let endRead!: () => void;
    const r = lock.run("read", () => new Promise<void>((res) => (endRead = res)).then(() => log.push("r end")));
    const w = lock.run("write", () => log.push("w"));
    await ticks(5);
    expect(log).toEqual([]);
    endRead();
    await Promise.all([r, w]);
    expect(log).toEqual(["r end", "w"]);
  });
});
