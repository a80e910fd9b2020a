import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const open: HNSWStore[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const c of cleanups.splice(0)) c();
});

function makeStore(opts: { fields?: string[]; index?: boolean; persistent?: boolean } = {}) {
  const embeddings = new FakeEmbeddings({ dims: 32 });
  let path: string | undefined;
  if (opts.persistent !== false) {
    const t = tempDir();
    cleanups.push(t.cleanup);
    path = t.dir;
  }
  const store = new HNSWStore({
    path,
    index: opts.index === false ? undefined : { dims: 32, embeddings, fields: opts.fields },
  });
  open.push(store);
  return { store, embeddings };
}

describe("keyword ranking indexes", () => {
  it("keeps per-namespace and store-wide keyword indexes in step with puts and deletes", async () => {
    const { store } = makeStore({ index: false });
    for (let u = 0; u < 12; u++) {
      await store.put(["users", `u${u}`], "a", { text: `member${u} likes sailing` });
      await store.put(["users", `u${u}`], "b", { text: `member${u} has a penicillin allergy` });
    }
    const keys = async (prefix: string[], query: string) => (await store.search(prefix, { query, limit: 3 })).map((r) => `${r.namespace[1]}/${r.key}`);
    // One namespace (its own index), then 12 namespaces (the store-wide index).
    expect((await keys(["users", "u1"], "penicillin"))[0]).toBe("u1/b");
    expect((await keys(["users"], "member7 penicillin"))[0]).toBe("u7/b");
    await store.put(["users", "u1"], "c", { text: "penicillin penicillin penicillin" });
    expect((await keys(["users", "u1"], "penicillin"))[0]).toBe("u1/c");
    expect((await keys(["users"], "penicillin"))[0]).toBe("u1/c");
    await store.delete(["users", "u1"], "c");
    expect(await keys(["users", "u1"], "penicillin")).not.toContain("u1/c");
    expect(await keys(["users"], "penicillin")).not.toContain("u1/c");
    await store.deleteNamespace(["users", "u1"]);
    await store.put(["users", "u1"], "d", { text: "penicillin again" });
    expect(await keys(["users", "u1"], "penicillin")).toEqual(["u1/d"]);
  });
});

describe("HNSWStore against InMemoryStore", () => {
  it("returns the same items and order as InMemoryStore for the same operations", async () => {
    const embeddings = new FakeEmbeddings({ dims: 32 });
    const mem = new InMemoryStore({ index: { dims: 32, embeddings, fields: ["text"] } });
    const { store } = makeStore({ fields: ["text"] });
    const texts = ["red apples", "green pears", "yellow bananas", "red cherries", "blue berries", "green apples"];
    for (const [i, text] of texts.entries()) {
      await mem.put(["fruit"], `k${i}`, { text, i });
      await store.put(["fruit"], `k${i}`, { text, i });
    }
    for (const query of ["red", "green apples", "berries"]) {
      const a = (await mem.search(["fruit"], { query, limit: 3 })).map((r) => [r.key, r.score?.toFixed(4)]);
      const b = (await store.search(["fruit"], { query, limit: 3 })).map((r) => [r.key, r.score?.toFixed(4)]);
      expect(b.map((x) => x[1])).toEqual(a.map((x) => x[1]));
    }
    expect((await store.search(["fruit"], { filter: { i: { $gte: 4 } } })).map((r) => r.key).sort()).toEqual(["k4", "k5"]);
  });

  it("ranks by keywords (BM25) when there is no index, where InMemoryStore returns unranked items", async () => {
    const { store } = makeStore({ index: false });
    await store.put(["k"], "a", { text: "I like sailing on weekends" });
    await store.put(["k"], "b", { text: "Allergic to penicillin since childhood" });
    await store.put(["k"], "c", { text: "Works as a nurse" });
    const res = await store.search(["k"], { query: "penicillin allergy" });
    expect(res[0].key).toBe("b");
    expect(res[0].score).toBeGreaterThan(0);
  });
});
