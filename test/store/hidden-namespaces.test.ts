import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("bookkeeping namespaces are hidden from listNamespaces()", () => {
  it("memory_cursors, memory_history and episode_cursors are left out unless the prefix names them", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const store = new HNSWStore({ path: t.dir, index: { dims: 8, embeddings: new FakeEmbeddings({ dims: 8 }) } });
    cleanups.push(() => store.close());
    await store.put(["users", "42"], "m", { text: "likes tea" });
    await store.put(["episodes", "42"], "e", { text: "a turn" });
    for (const root of ["memory_cursors", "memory_history", "episode_cursors"]) {
      await store.put([root, "users", "42"], "x", { n: 1 }, false);
    }
    expect(await store.listNamespaces()).toEqual([
      ["episodes", "42"],
      ["users", "42"],
    ]);
    expect(await store.listNamespaces({ maxDepth: 1 })).toEqual([["episodes"], ["users"]]);
    expect(await store.listNamespaces({ prefix: ["memory_history"] })).toEqual([["memory_history", "users", "42"]]);
    expect(await store.listNamespaces({ prefix: ["episode_cursors"] })).toEqual([["episode_cursors", "users", "42"]]);
    expect(await store.listNamespaces({ prefix: ["memory_cursors"] })).toEqual([["memory_cursors", "users", "42"]]);
    // Hidden from listing only: reads still see them.
    expect(await store.get(["memory_history", "users", "42"], "x")).not.toBeNull();
  });
});
