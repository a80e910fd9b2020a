import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CachedEmbeddings, HNSWStore } from "../../src/index.js";
import { encodeLogOps, WriteAheadLog, type LogOp, type LogRecord } from "../../src/store/hnsw/write-ahead-log.js";
import { VectorIndex } from "../../src/store/hnsw/vector-index.js";
import { mapInSlices, TimeSlicer, yieldToLoop } from "../../src/time-slice.js";
import { encodeVector } from "../../src/embeddings/vector-codec.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { loopTicker } from "../helpers/settle.js";

// FakeEmbeddings is a TEST DOUBLE (deterministic vectors): only the store's own work is under test.
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function dirForTest(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

describe("yieldToLoop and mapInSlices", () => {
  it("resumes waiting tasks one per turn of the loop, in order, with the loop's other work between them", async () => {
    let turns = 0;
    let done = false;
    const turn = () => {
      turns++;
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    const order: string[] = [];
    const seenAt: number[] = [];
    const task = async (name: string) => {
      for (let i = 0; i < 3; i++) {
        await yieldToLoop();
        order.push(`${name}${i}`);
        seenAt.push(turns);
      }
    };
    await Promise.all([task("a"), task("b")]);
    done = true;
    expect(order).toEqual(["a0", "b0", "a1", "b1", "a2", "b2"]);
    // Each resumption came in a turn of its own: the other setImmediate work ran in between.
    for (let i = 1; i < seenAt.length; i++) expect(seenAt[i]!).toBeGreaterThan(seenAt[i - 1]!);
  });

  it("maps every item in order, yields between items when the slice is used up, and never for one item", async () => {
    const always = new TimeSlicer(-1);
    const t = loopTicker();
    expect(await mapInSlices([1, 2, 3, 4], (x, i) => x * 10 + i, always)).toEqual([10, 21, 32, 43]);
    const ticks = t.stop();
    expect(ticks).toBeGreaterThanOrEqual(3);
    const t2 = loopTicker();
    expect(await mapInSlices(["only"], (x) => x.toUpperCase(), always)).toEqual(["ONLY"]);
    expect(t2.stop()).toBe(0);
  });

  it("a shared slicer counts from the last resume, so chained steps share one slice", async () => {
    await yieldToLoop();
    expect(new TimeSlicer(60_000, true).due).toBe(false);
    const start = performance.now();
    while (performance.now() - start < 5) {
      // busy: this turn uses 5 ms
    }
    expect(new TimeSlicer(2, true).due).toBe(true); // a fresh shared slicer sees the time already used
    expect(new TimeSlicer(2).due).toBe(false); // an own slicer starts now
  });
});

describe("write-ahead log records assembled from pre-encoded ops", () => {
  const op = (i: number, text: string): LogOp => ({
    t: "put",
    ns: ["users", "u1"],
    key: `k${i}`,
    value: { text, n: i },
    index: ["text"],
    vec: [["text", encodeVector(Float32Array.from({ length: 8 }, (_, d) => d * 0.5 - i))]],
  });

  it("writes the same line as JSON.stringify, with or without encodeLogOps, and reads every record back", async () => {
    const dir = dirForTest();
    const file = path.join(dir, "wal.log");
    WriteAheadLog.create(file, 1, 0);
    const { log } = WriteAheadLog.open(file, { generation: 1, after: 0 });
    // A big record first, then a small one: the reused buffer must not leak bytes of the first into the second.
    const big: LogRecord = { seq: 1, at: 1700000000000.5, ops: Array.from({ length: 300 }, (_, i) => op(i, `näive café ${"x".repeat(i)} 日本`)) };
    await encodeLogOps(big.ops, new TimeSlicer(-1));
    log.appendNow(big);
    const small: LogRecord = { seq: 2, at: 1700000000001, ops: [op(7, "plain"), { t: "del", ns: ["users", "u1"], key: "k3" }] };
    log.appendNow(small); // not pre-encoded
    const mixed: LogRecord = { seq: 3, at: 1700000000002, ops: [op(8, "pre-encoded"), op(9, "not")] };
    await encodeLogOps([mixed.ops[0]!], new TimeSlicer(-1));
    log.appendNow(mixed);
    log.close();

    const lines = fs.readFileSync(file, "utf8").split("\n").slice(1, -1);
    expect(lines).toHaveLength(3);
    [big, small, mixed].forEach((r, i) => expect(lines[i]!.slice(9)).toBe(JSON.stringify(r)));
    const { records } = WriteAheadLog.read(file, { generation: 1, after: 0 });
    expect(records).toEqual([big, small, mixed]);
  });
});

describe("VectorIndex.reserve", () => {
  it("grows the capacity once for a whole batch, counting labels free for reuse", () => {
    const index = VectorIndex.create({ space: "cosine", dims: 4, M: 8, efConstruction: 32, efSearch: 32, initialCapacity: 16, seed: 1 });
    const v = (i: number) => [1, i, i % 3, 1];
    for (let i = 0; i < 16; i++) index.add(v(i));
    expect(index.capacity).toBe(16);
    expect(index.reserve(0)).toBe(false);
    expect(index.reserve(100)).toBe(true);
    expect(index.capacity).toBe(128); // 16 → 32 → 64 → 128 ≥ 116, in one resize
    for (let i = 16; i < 116; i++) index.add(v(i));
    expect(index.capacity).toBe(128);
    for (let i = 0; i < 10; i++) index.remove(i);
    expect(index.reserve(22)).toBe(false); // 10 free labels + 12 slots left
    expect(index.reserve(23)).toBe(true);
    expect(index.capacity).toBe(256);
    expect(index.liveCount).toBe(106);
    expect(index.search(v(50), 1)[0]!.label).toBe(50);
  });
});

describe("a large batch stays correct while its preparation and the cache yield", () => {
  it("stores every put of a batch larger than the index's capacity, logs it, and reopens with the same items and vectors", async () => {
    const dir = dirForTest();
    const embeddings = new FakeEmbeddings({ dims: 64 });
    const store = new HNSWStore({ path: dir, index: { dims: 64, embeddings, fields: ["text"] }, hnsw: { initialCapacity: 16 } });
    const ops = Array.from({ length: 3000 }, (_, i) => ({ namespace: ["bulk", `u${i % 7}`], key: `k${i}`, value: { text: `memory ${i} about topic${i % 13} é` } }));
    const t = loopTicker();
    await store.batch(ops);
    const ticks = t.stop();
    expect(ticks).toBeGreaterThan(1);
    expect(await store.count(["bulk"])).toBe(3000);
    const hit = (await store.search(["bulk"], { query: "memory 2024 about topic9 é", limit: 1 }))[0];
    expect(hit?.key).toBe("k2024");
    await store.close();

    const reopened = new HNSWStore({ path: dir, index: { dims: 64, embeddings, fields: ["text"] } });
    cleanups.push(() => reopened.close());
    expect(await reopened.count(["bulk"])).toBe(3000);
    expect((await reopened.get(["bulk", "u1"], "k1002"))?.value).toEqual({ text: "memory 1002 about topic1 é" });
    expect((await reopened.search(["bulk"], { query: "memory 2024 about topic9 é", limit: 1 }))[0]?.key).toBe("k2024");
  });

  it("the embedding cache returns every vector in order and keeps them across a restart", async () => {
    const dir = dirForTest();
    const file = path.join(dir, "cache.jsonl");
    const inner = new FakeEmbeddings({ dims: 32 });
    const texts = Array.from({ length: 4000 }, (_, i) => `text number ${i}`);
    const cache = new CachedEmbeddings({ embeddings: inner, file });
    const out = await cache.embedDocuments(texts);
    const direct = await inner.embedDocuments(texts);
    out.forEach((v, i) => v.forEach((x, d) => expect(x).toBe(Math.fround(direct[i]![d]!))));
    await cache.close();
    const again = new CachedEmbeddings({ embeddings: inner, file });
    cleanups.push(() => again.close());
    expect(await again.embedDocuments(texts.slice(0, 50))).toEqual(out.slice(0, 50));
    expect(again.stats).toEqual({ hits: 50, misses: 0 });
  });
});
