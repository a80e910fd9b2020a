import crypto from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { graphLoadTestHooks } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { ticks, track } from "../helpers/settle.js";

// FakeEmbeddings is a TEST DOUBLE: meaning is not under test here, only what waits for the graph.
const embeddings = new FakeEmbeddings({ dims: 16 });
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  graphLoadTestHooks.beforeRead = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Options = Partial<ConstructorParameters<typeof HNSWStore>[0]>;

function openStore(dir: string, extra: Options = {}): HNSWStore {
  // A small exact-scan threshold: one user's 30 items are scanned, the whole store is walked.
  const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] }, hnsw: { exactScanThreshold: 40 }, ...extra });
  cleanups.push(() => store.close());
  return store;
}

/** A closed store directory of 3 users × 30 memories, and what user 1's search returned before the close. */
async function seeded(extra: Options = {}): Promise<{ dir: string; before: { key: string; score?: number }[] }> {
  const t = tempDir("open-graph-");
  cleanups.push(t.cleanup);
  const store = openStore(t.dir, extra);
  for (let u = 0; u < 3; u++) {
    await store.batch(Array.from({ length: 30 }, (_, i) => ({ namespace: ["users", `u${u}`], key: `m${i}`, value: { text: `user ${u} memory ${i} about topic ${i % 7}` } })));
  }
  const before = (await store.search(["users", "u1"], { query: "memory about topic 3", limit: 5 })).map((h) => ({ key: h.key, score: h.score }));
  await store.close();
  return { dir: t.dir, before };
}

/** Holds the next graph read until `release()` (or fails it with `fail(err)`). */
function holdGraph(): { reached: Promise<void>; release: () => void; fail: (err: Error) => void } {
  let reach!: () => void;
  let release!: () => void;
  let fail!: (err: Error) => void;
  const reached = new Promise<void>((r) => (reach = r));
  const gate = new Promise<void>((r, j) => {
    release = r;
    fail = j;
  });
  graphLoadTestHooks.beforeRead = async () => {
    graphLoadTestHooks.beforeRead = undefined;
    reach();
    await gate;
  };
  return { reached, release, fail };
}

describe("open before the graph is loaded", () => {
  it("open resolves while hnswlib still reads the graph; gets, listings and one user's search answer meanwhile, the same as before", async () => {
    const { dir, before } = await seeded();
    const gate = holdGraph();
    const store = openStore(dir);
    await store.open();
    await gate.reached; // the graph read has started and is held: nothing below can have used it
    expect((await store.get(["users", "u2"], "m4"))?.value).toEqual({ text: "user 2 memory 4 about topic 4" });
    expect(await store.count()).toBe(90);
    expect((await store.listNamespaces({})).length).toBe(3);
    const early = await store.search(["users", "u1"], { query: "memory about topic 3", limit: 5 });
    expect(early.map((h) => ({ key: h.key, score: h.score }))).toEqual(before);
    gate.release();
    const late = await store.search(["users", "u1"], { query: "memory about topic 3", limit: 5 });
    expect(late.map((h) => ({ key: h.key, score: h.score }))).toEqual(before);
  });

  it("a search that walks the graph, a put and stats wait for it, in order, and then see it whole", async () => {
    const { dir } = await seeded();
    const gate = holdGraph();
    const store = openStore(dir);
    await store.open();
    await gate.reached;
    const walk = track(store.search([], { query: "memory about topic 3", limit: 5 }));
    const put = track(store.put(["users", "u0"], "new", { text: "a brand new memory about topic 3" }));
    const stats = track(store.stats());
    await ticks();
    expect([walk.done(), put.done(), stats.done()]).toEqual([false, false, false]);
    gate.release();
    expect((await walk.promise).length).toBe(5);
    await put.promise;
    expect((await stats.promise).vectors).toBe(91);
    expect((await store.search(["users", "u0"], { query: "a brand new memory about topic 3", limit: 1 }))[0]?.key).toBe("new");
  });

  it("close waits for the graph read, so nothing reads the directory once it resolves", async () => {
    const { dir } = await seeded();
    const gate = holdGraph();
    const store = openStore(dir);
    await store.open();
    await gate.reached;
    const closing = track(store.close());
    await ticks();
    expect(closing.done()).toBe(false);
    gate.release();
    await closing.promise;
    // The directory opens again (its lock was released), with everything in it.
    const again = openStore(dir);
    expect(await again.count()).toBe(90);
  });

  it("a graph that fails to load fails what needs it, with its error; the rest keeps working", async () => {
    const { dir } = await seeded();
    const gate = holdGraph();
    const store = openStore(dir, { logger: { warn: () => undefined } });
    await store.open();
    await gate.reached;
    gate.fail(new Error("disk read failed"));
    await expect(store.search([], { query: "memory", limit: 3 })).rejects.toThrow(/disk read failed/);
    await expect(store.put(["users", "u0"], "x", { text: "not stored" })).rejects.toThrow(/disk read failed/);
    expect((await store.get(["users", "u0"], "m1"))?.value.text).toBe("user 0 memory 1 about topic 1");
    expect(await store.get(["users", "u0"], "x")).toBeNull();
    await store.close();
    // Nothing was written: a fresh open has the same 90 items and loads its graph.
    const again = openStore(dir);
    expect((await again.search([], { query: "memory", limit: 3 })).length).toBe(3);
    expect(await again.count()).toBe(90);
  });

  it("a sealed index cannot be read vector by vector: one user's search waits for the graph too", async () => {
    const key = crypto.randomBytes(32);
    const { dir, before } = await seeded({ encryption: { key } });
    const gate = holdGraph();
    const store = openStore(dir, { encryption: { key } });
    await store.open();
    await gate.reached;
    expect((await store.get(["users", "u2"], "m4"))?.value.text).toBe("user 2 memory 4 about topic 4");
    const search = track(store.search(["users", "u1"], { query: "memory about topic 3", limit: 5 }));
    await ticks();
    expect(search.done()).toBe(false);
    gate.release();
    expect((await search.promise).map((h) => ({ key: h.key, score: h.score }))).toEqual(before);
  });
});
