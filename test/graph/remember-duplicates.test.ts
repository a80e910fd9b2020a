/**
 * The `remember` tool's near-duplicate rule: without a key, a new fact whose
 * cosine similarity to a memory of the same namespace is at least
 * `duplicateThreshold` updates that memory instead of adding one. HNSWStore
 * answers the check with `nearestInNamespace` (an exact scan of that one
 * namespace, the text embedded once); other stores through `search`. Both
 * must decide the same. Embeddings come from FakeEmbeddings, a deterministic
 * bag-of-words TEST DOUBLE, so the cosines are known exactly.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { InMemoryStore, type BaseStore } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryTools } from "../../src/graph/tools.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { hasNearestInNamespace } from "../../src/store/nearest.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { DIMS, storeFactories, type StoreCase } from "./stores.js";

const NS = ["users", "{user_id}"] as const;
const cfg = (user_id: string) => ({ configurable: { user_id } });
const rememberTool = (store: BaseStore, duplicateThreshold?: number): StructuredToolInterface =>
  createMemoryTools({ namespace: NS, store, duplicateThreshold }).find((t) => t.name === "remember")!;

const A = "alpha bravo charlie delta";
const B = "alpha bravo charlie echo"; // shares three of four words with A

function cosine(e: FakeEmbeddings, a: string, b: string): number {
  const x = e.embedText(a);
  const y = e.embedText(b);
  return x.reduce((s, v, i) => s + v * y[i]!, 0);
}

const keysOf = async (store: BaseStore, ns: string[]) => (await store.search(ns, { limit: 50 })).filter((i) => i.namespace.join("/") === ns.join("/")).map((i) => i.key);

describe.each(storeFactories())("remember's duplicate rule over $name", (factory) => {
  let c: StoreCase;
  beforeEach(async () => {
    c = await factory.make();
  });
  afterEach(async () => {
    await c.cleanup();
  });

  it("updates at cosine ≥ the threshold and adds below it, at the exact boundary", async () => {
    const cos = cosine(c.embeddings, A, B);
    expect(cos).toBeGreaterThan(0.5);
    expect(cos).toBeLessThan(0.95);
    await c.store.put(["users", "1"], "a", { text: A });
    expect(await rememberTool(c.store, cos + 1e-6).invoke({ content: B }, cfg("1"))).toMatch(/^Saved memory/);
    expect((await keysOf(c.store, ["users", "1"])).length).toBe(2);

    await c.store.put(["users", "2"], "a", { text: A });
    expect(await rememberTool(c.store, cos - 1e-6).invoke({ content: B }, cfg("2"))).toBe("Updated memory [a] (it already held nearly the same fact).");
    expect(await keysOf(c.store, ["users", "2"])).toEqual(["a"]);
    expect((await c.store.get(["users", "2"], "a"))!.value).toEqual({ text: B, source: "tool" });
  });

  it("with the default 0.95 updates the nearest twin, never a memory of another namespace or below it", async () => {
    await c.store.put(["users", "1"], "far", { text: "User has two cats" });
    await c.store.put(["users", "1"], "twin", { text: "User is vegetarian" });
    await c.store.put(["users", "1", "archive"], "sub", { text: "User is a strict vegetarian" });
    await c.store.put(["users", "2"], "other", { text: "User is vegetarian" });
    expect(await rememberTool(c.store).invoke({ content: "user IS vegetarian" }, cfg("1"))).toMatch(/^Updated memory \[twin\]/);
    expect((await c.store.get(["users", "1"], "twin"))!.value.text).toBe("user IS vegetarian");
    expect((await c.store.get(["users", "2"], "other"))!.value.text).toBe("User is vegetarian");

    // The only twin is below the namespace (or in another user's): a new memory is added.
    const saved = (await rememberTool(c.store).invoke({ content: "User is a strict vegetarian" }, cfg("1"))) as string;
    expect(saved).toMatch(/^Saved memory \[[0-9a-f-]{36}\]\.$/);
    expect((await c.store.get(["users", "1", "archive"], "sub"))!.value.text).toBe("User is a strict vegetarian");
    expect((await keysOf(c.store, ["users", "1"])).length).toBe(3);
    expect(await rememberTool(c.store).invoke({ content: "User plays chess" }, cfg("3"))).toMatch(/^Saved memory/);
  });
});

describe("HNSWStore answers the duplicate check without a search", () => {
  let dir: string;
  let embeddings: FakeEmbeddings;
  let store: HNSWStore;
  let now: number;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "remember-dup-"));
    embeddings = new FakeEmbeddings({ dims: DIMS });
    now = Date.UTC(2026, 0, 1);
    store = new HNSWStore({ path: dir, index: { dims: DIMS, embeddings, fields: ["text"] }, clock: () => now });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("embeds the new text once, as a document, and never searches", async () => {
    expect(hasNearestInNamespace(store)).toBe(true);
    expect(hasNearestInNamespace(new InMemoryStore())).toBe(false);
    await store.put(["users", "1"], "a", { text: A });
    const search = vi.spyOn(store, "search");
    const nearest = vi.spyOn(store, "nearestInNamespace");
    const docsBefore = embeddings.documentCalls.flat().length;
    await rememberTool(store).invoke({ content: "User plays the cello" }, cfg("1"));
    expect(search).not.toHaveBeenCalled();
    expect(nearest).toHaveBeenCalledTimes(1);
    expect(embeddings.documentCalls.flat().slice(docsBefore)).toEqual(["User plays the cello"]);
    expect(embeddings.queryCalls).not.toContain("User plays the cello");
  });

  it("nearestInNamespace gives the search's cosine for the best item of that namespace only", async () => {
    expect(await store.nearestInNamespace(["users", "1"], A)).toBeNull();
    await store.put(["users", "1"], "a", { text: A });
    await store.put(["users", "1"], "c", { text: "User has two cats" });
    await store.put(["users", "1"], "n", { text: "no vector here" }, false);
    await store.put(["users", "1", "sub"], "b", { text: B });
    const hit = await store.nearestInNamespace(["users", "1"], B);
    expect(hit!.key).toBe("a");
    expect(hit!.score).toBeCloseTo(cosine(embeddings, A, B), 5);
    expect((await store.nearestInNamespace(["users", "1", "sub"], B))!.score).toBeCloseTo(1, 5);
    const vectorOnly = new HNSWStore({ index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "vector" });
    await vectorOnly.put(["users", "1"], "a", { text: A });
    expect((await vectorOnly.search(["users", "1"], { query: B }))[0]!.score).toBeCloseTo(hit!.score, 5);
    await vectorOnly.close();
  });

  it("an expired memory is no twin", async () => {
    await store.put(["users", "1"], "old", { text: A }, undefined, { ttl: 1 });
    now += 2 * 60_000;
    expect(await store.nearestInNamespace(["users", "1"], A)).toBeNull();
    expect(await rememberTool(store).invoke({ content: A }, cfg("1"))).toMatch(/^Saved memory/);
  });

  it("falls back to a search where the store does not rank by vectors, or the namespace is too big to scan", async () => {
    const keyword = new HNSWStore({ index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "keyword" });
    const plain = new HNSWStore();
    const big = new HNSWStore({ index: { dims: DIMS, embeddings, fields: ["text"] }, hnsw: { exactScanThreshold: 3 } });
    await big.batch(["w", "x", "y", "z"].map((k) => ({ namespace: ["users", "1"], key: k, value: { text: `fact ${k}` } })));
    try {
      for (const s of [keyword, plain, big]) {
        expect(await s.nearestInNamespace(["users", "1"], A)).toBeUndefined();
        const search = vi.spyOn(s, "search");
        expect(await rememberTool(s).invoke({ content: A }, cfg("1"))).toMatch(/^Saved memory/);
        expect(search).toHaveBeenCalledTimes(1);
      }
    } finally {
      await keyword.close();
      await plain.close();
      await big.close();
    }
  });
});
