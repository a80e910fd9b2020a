/**
 * The inspector's JSON routes on a real HNSWStore (temp dir; FakeEmbeddings
 * TEST DOUBLE), through Fastify's inject: honest totals and pages, filter and
 * sort, the bookkeeping namespaces kept out, reads that never refresh a TTL,
 * restore that keeps the value it replaces, forget that leaves nothing of a
 * person, conversations grouped by thread, and named 400s for bad input.
 * (In the browser suite, with the page's tests: it takes a few seconds.)
 */
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { versionPut } from "../../src/privacy/history.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const U = ["users", "42"];
const key = (i: number) => `k${String(i).padStart(3, "0")}`;

describe("inspector API", () => {
  let t: { dir: string; cleanup: () => void };
  let store: HNSWStore;
  let app: FastifyInstance;
  let now = Date.UTC(2026, 11, 1, 12);

  beforeEach(async () => {
    t = tempDir("inspector-api-");
    now = Date.UTC(2026, 11, 1, 12);
    store = new HNSWStore({ path: t.dir, index: { dims: 16, embeddings: new FakeEmbeddings(), fields: ["text"] }, ttl: { refreshOnRead: true, sweepIntervalMinutes: 0 }, clock: () => now });
    await store.batch(Array.from({ length: 130 }, (_, i) => ({ namespace: U, key: key(i), value: { text: i % 13 === 0 ? `tea number ${i}` : `note ${i}`, source: "tool" } })));
    await store.put(["users", "42", "prefs"], "theme", { text: "dark theme" });
    await store.put(["memory_cursors", "users", "42"], "t1", { processed: 1, last: "x" }, false);
    app = Fastify();
    await app.register(inspectorPlugin, { store });
  });
  afterEach(async () => {
    await app.close();
    await store.close();
    t.cleanup();
  });

  const get = async (url: string) => {
    const r = await app.inject({ method: "GET", url });
    return { status: r.statusCode, body: r.json() };
  };
  const ns = encodeURIComponent(JSON.stringify(U));

  it("pages with an honest total, whether the store lists or the inspector scans", async () => {
    const raw = await app.inject({ method: "GET", url: `/inspector/api/memories?namespace=${ns}&limit=1` });
    expect(raw.headers["cache-control"]).toBe("no-store");
    const first = await get(`/inspector/api/memories?namespace=${ns}&limit=50`);
    expect(first.body.total).toBe(131); // the namespace and the one below it
    expect(first.body.memories).toHaveLength(50);
    const keys = new Set<string>();
    for (let offset = 0; offset < 131; offset += 50) {
      const page = await get(`/inspector/api/memories?namespace=${ns}&limit=50&offset=${offset}`);
      for (const m of page.body.memories) keys.add(`${m.namespace.join(".")}/${m.key}`);
    }
    expect(keys.size).toBe(131);
    const past = await get(`/inspector/api/memories?namespace=${ns}&offset=500`);
    expect(past.body).toMatchObject({ total: 131, memories: [] });
    const sorted = await get(`/inspector/api/memories?namespace=${ns}&sort=key-desc&limit=3&offset=1`);
    expect(sorted.body.memories.map((m: { key: string }) => m.key)).toEqual([key(129), key(128), key(127)]);
    expect(sorted.body).toMatchObject({ total: 131, complete: true, sort: "key-desc" });
  });

  it("filters by text, key or namespace, and keeps bookkeeping out of a listing of everything", async () => {
    const tea = await get(`/inspector/api/memories?namespace=${ns}&filter=TEA&field=text`);
    expect(tea.body.total).toBe(10);
    const byKey = await get(`/inspector/api/memories?namespace=${ns}&filter=k12&field=key`);
    expect(byKey.body.total).toBe(10);
    const byNs = await get(`/inspector/api/memories?namespace=${ns}&filter=prefs&field=namespace`);
    expect(byNs.body.memories.map((m: { key: string }) => m.key)).toEqual(["theme"]);
    const everything = await get(`/inspector/api/memories?namespace=&limit=1000`);
    expect(everything.body.total).toBe(131);
    expect(everything.body.memories.some((m: { namespace: string[] }) => m.namespace[0] === "memory_cursors")).toBe(false);
    await store.put(["users", "42", "x", "y"], "deep", { text: "two levels down, no namespace between" });
    const names = await get("/inspector/api/namespaces");
    expect(names.body.namespaces).toEqual([
      { namespace: ["users", "42"], items: 130, kind: "memories", memoryKind: "facts" },
      { namespace: ["users", "42", "prefs"], items: 1, kind: "memories", memoryKind: "facts" },
      { namespace: ["users", "42", "x", "y"], items: 1, kind: "memories", memoryKind: "facts" },
    ]);
  });

  it("looking at a memory does not refresh its TTL", async () => {
    await store.put(U, "short", { text: "expires soon" }, undefined, { ttl: 10 });
    const before = (await store.expiryOf(U, "short"))!.getTime();
    now += 5 * 60_000;
    await get(`/inspector/api/memories?namespace=${ns}&filter=soon`);
    await get(`/inspector/api/memories?namespace=${ns}`);
    const one = await get(`/inspector/api/memory?namespace=${ns}&key=short`);
    expect(one.body.memory.expiresAt).toBe(new Date(before).toISOString());
    expect((await store.expiryOf(U, "short"))!.getTime()).toBe(before);
  });

  it("restores a kept version and keeps the value it replaces, so the restore can be undone", async () => {
    const old = (await store.get(U, key(1)))!;
    await store.batch([versionPut(old, { op: "update", source: "tool" }), { namespace: U, key: key(1), value: { text: "newer" } }]);
    const detail = await get(`/inspector/api/memory?namespace=${ns}&key=${key(1)}`);
    expect(detail.body.history).toHaveLength(1);
    const version = detail.body.history[0].version;
    const r = await app.inject({ method: "POST", url: "/inspector/api/restore", payload: { namespace: U, key: key(1), version } });
    expect(r.statusCode).toBe(200);
    expect((await store.get(U, key(1)))!.value.text).toBe("note 1");
    const after = await get(`/inspector/api/memory?namespace=${ns}&key=${key(1)}`);
    expect(after.body.history.map((v: { value: { text: string } }) => v.value.text)).toEqual(["newer", "note 1"]);
    for (const bad of [{ version: 0 }, { version: "1" }, { version: 12345 }, { key: "" }]) {
      const res = await app.inject({ method: "POST", url: "/inspector/api/restore", payload: { namespace: U, key: key(1), version, ...bad } });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
    }
    expect((await store.get(U, key(1)))!.value.text).toBe("note 1");
  });

  it("lists conversations by thread and a thread's turns in order", async () => {
    const msgs = (n: number) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}` }));
    await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "a", messages: msgs(4), now: "2026-11-01T10:00:00Z" });
    await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "b", messages: msgs(3), now: "2026-11-05T10:00:00Z" });
    const names = await get("/inspector/api/namespaces");
    expect(names.body.namespaces[0]).toEqual({ namespace: ["episodes", "42"], items: 7, kind: "episodes", memoryKind: "episodes" });
    const eps = encodeURIComponent('["episodes","42"]');
    const threads = await get(`/inspector/api/threads?namespace=${eps}`);
    expect(threads.body.total).toBe(2);
    expect(threads.body.threads.map((x: { threadId: string; turns: number; dates: string[] }) => [x.threadId, x.turns, x.dates])).toEqual([["b", 3, ["2026-11-05"]], ["a", 4, ["2026-11-01"]]]);
    const turns = await get(`/inspector/api/thread?namespace=${eps}&thread=a&offset=1&limit=2`);
    expect(turns.body).toMatchObject({ total: 4, threadId: "a" });
    expect(turns.body.turns.map((x: { turn: number; speaker: string; text: string }) => [x.turn, x.speaker, x.text])).toEqual([[1, "assistant", "turn 1"], [2, "user", "turn 2"]]);
    expect((await get(`/inspector/api/thread?namespace=${eps}`)).status).toBe(400);
  });

  it("forgets a person only with the user id typed again, and leaves nothing of them", async () => {
    await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "a", messages: [{ role: "user", content: "hello" }] });
    const old = (await store.get(U, key(2)))!;
    await store.batch([versionPut(old, { op: "update", source: "tool" })]);
    await store.put(["users", "7"], "x", { text: "other user" });
    const refused = await app.inject({ method: "POST", url: "/inspector/api/forget", payload: { namespace: U, confirm: "4" } });
    expect(refused.statusCode).toBe(400);
    expect(await store.count(U)).toBe(131);
    const r = await app.inject({ method: "POST", url: "/inspector/api/forget", payload: { namespace: U, confirm: "42" } });
    expect(r.json()).toMatchObject({ memories: 131, episodes: 1, history: 1, namespaces: [U, ["episodes", "42"]] });
    expect(r.json().cursors).toBeGreaterThanOrEqual(2);
    for (const root of [[], ["memory_cursors"], ["memory_history"], ["episode_cursors"]]) {
      expect(await store.count([...root, ...U])).toBe(0);
      expect(await store.count([...root, "episodes", "42"])).toBe(0);
    }
    expect(await store.count(["users", "7"])).toBe(1);
  });

  it("answers bad input with a 400 that says what is wrong", async () => {
    for (const [q, msg] of [["offset=-1", /offset must be an integer/], ["limit=1001", /limit must be an integer from 1 to 1000/], ["sort=size", /sort must be one of/], ["field=x", /field must be one of/], ["sort=relevance", /needs a query/]] as const) {
      const r = await get(`/inspector/api/memories?namespace=${ns}&${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.message).toMatch(msg);
    }
    expect((await get(`/inspector/api/memory?namespace=${ns}`)).status).toBe(400);
  });
});
