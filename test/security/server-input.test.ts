/**
 * Bad input at the memory server over real HTTP: bodies nested 200,000
 * levels deep, ids at and past the limit on every path, and requests that
 * ask for far more than anyone should get back. Each is a named 4xx with the
 * server's one error body shape, changes nothing, and leaves the server up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { createMemoryServer, type MemoryServerOptions } from "../../src/server/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { API_KEY, asUser, bearerAuth } from "../server/support.js";
import { raw, type RawAnswer } from "./server-raw-http.js";
import { tally } from "./server-counts.js";

const counts = tally("server-input.test.ts");
afterAll(() => counts.write());

interface Served {
  store: HNSWStore;
  port: number;
  close: () => Promise<void>;
}

async function serve(extra: Partial<MemoryServerOptions> = {}): Promise<Served> {
  const tmp = tempDir("security-input-");
  const store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
  const app = createMemoryServer({ store, apiKey: API_KEY, authenticate: bearerAuth, logger: false, ...extra });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return {
    store,
    port: typeof address === "object" && address ? address.port : 0,
    close: async () => {
      await app.close();
      tmp.cleanup();
    },
  };
}

/** The one error body shape: exactly `{ error, message, statusCode }` (plus `details` for some), status matching. */
function standardError(r: RawAnswer, status: number, name: string): boolean {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(r.text);
  } catch {
    return false;
  }
  const keys = Object.keys(body).filter((k) => k !== "details").sort();
  return r.status === status && body.error === name && body.statusCode === status && typeof body.message === "string" && keys.join() === "error,message,statusCode";
}

const nested = (levels: number, inner = '"x"') => "[".repeat(levels) + inner + "]".repeat(levels);
const nestedObject = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

describe("server bad input", () => {
  let s: Served;
  const user = asUser("u1");
  const send = (method: string, path: string, text: string, headers: Record<string, string> = user) =>
    raw(s.port, method, path, { headers: { ...headers, "content-type": "application/json" }, rawBody: text });

  beforeAll(async () => {
    s = await serve();
    await s.store.put(["users", "u1"], "keep", { text: "keep me" });
  });
  afterAll(async () => s?.close());

  it("a namespace, a match-condition path, a value, a filter or metadata nested 150,000–200,000 levels deep: 400 JsonTooDeepError, nothing changed", async () => {
    const deep = nested(200_000);
    const cases: [string, string, string][] = [
      ["POST", "/store/items/search", `{"namespace_prefix":${deep}}`],
      ["POST", "/store/batch", `{"operations":[{"op":"list_namespaces","match_conditions":[{"match_type":"prefix","path":${deep}}]}]}`],
      ["POST", "/store/batch", `{"operations":[{"op":"search","namespace_prefix":${deep}}]}`],
      ["PUT", "/store/items", `{"namespace":${deep},"key":"k","value":{"text":"x"}}`],
      ["PUT", "/store/items", `{"namespace":["a"],"key":"k","value":{"text":${nestedObject(150_000)}}}`],
      ["POST", "/store/items/search", `{"namespace_prefix":[],"filter":${nestedObject(150_000)}}`],
      ["POST", "/store/namespaces", `{"prefix":${deep}}`],
      ["POST", "/v1/store/memories", `{"text":"x","metadata":${nestedObject(150_000)}}`],
      ["DELETE", "/store/items", `{"namespace":${deep},"key":"k"}`],
    ];
    for (const [method, path, text] of cases) {
      expect(text.length).toBeLessThan(1024 * 1024); // under the body limit: the depth cap is what refuses it
      for (const headers of [user, { "x-api-key": API_KEY }]) {
        const r = await send(method, path, text, headers);
        const held = counts.count("JSON nested 150,000+ levels", standardError(r, 400, "JsonTooDeepError"), `${method} ${path} → ${r.status} ${r.text.slice(0, 100)}`);
        expect(held, `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`).toBe(true);
      }
    }
    expect((await raw(s.port, "GET", "/ok")).status).toBe(200);
    expect((await s.store.search(["a"])).length).toBe(0);
    expect((await s.store.get(["users", "u1"], "keep"))?.value.text).toBe("keep me");
  });

  it("legitimate nesting still works: a value 90 levels deep is stored and read back", async () => {
    const value = `{"text":"deep","n":${nestedObject(90)}}`;
    const put = await send("PUT", "/store/items", `{"namespace":["deep"],"key":"k","value":${value}}`);
    expect(put.status).toBe(204);
    const got = await raw(s.port, "GET", "/store/items?namespace=deep&key=k", { headers: user });
    expect(JSON.parse(got.text).value.text).toBe("deep");
  });

  it("one id limit (256) for create and every /v1 path: 101–256 characters work everywhere; 257 is the same 400 everywhere", async () => {
    for (const id of ["a".repeat(101), "b".repeat(200), "c".repeat(256), "é".repeat(256), "😀".repeat(256), "x/y?z#%".repeat(36).slice(0, 256)]) {
      const path = `/v1/store/memories/${encodeURIComponent(id)}`;
      const steps: [string, string, unknown, number][] = [
        ["POST", "/v1/store/memories", { text: "hello", id }, 201],
        ["POST", path, {}, 200],
        ["PUT", path, { text: "updated" }, 200],
        ["POST", "/v1/store/memories/forget", { ids: [id] }, 200],
        ["POST", "/v1/store/memories", { text: "again", id }, 201],
        ["DELETE", path, {}, 200],
      ];
      for (const [method, p, body, status] of steps) {
        const r = await raw(s.port, method, p, { headers: user, body });
        const held = counts.count("id of 101–256 characters on every path", r.status === status, `${method} ${p.slice(0, 60)}… (${[...id].length} chars) → ${r.status} ${r.text.slice(0, 120)}`);
        expect(held, `${method} ${[...id].length}-char id: ${r.status} ${r.text.slice(0, 200)}`).toBe(true);
      }
    }
    for (const id of ["d".repeat(257), "e".repeat(1000), "f".repeat(5000), "😀".repeat(257)]) {
      const path = `/v1/store/memories/${encodeURIComponent(id)}`;
      for (const [method, p, body] of [
        ["POST", "/v1/store/memories", { text: "hello", id }],
        ["POST", path, {}],
        ["PUT", path, { text: "x" }],
        ["DELETE", path, {}],
        ["POST", "/v1/store/memories/forget", { ids: [id] }],
      ] as const) {
        const r = await raw(s.port, method, p, { headers: user, body });
        const held = counts.count("id over the limit, same answer everywhere", standardError(r, 400, "InvalidArgumentError"), `${method} (${[...id].length} chars) → ${r.status} ${r.text.slice(0, 120)}`);
        expect(held, `${method} ${[...id].length}-char id: ${r.status} ${r.text.slice(0, 200)}`).toBe(true);
      }
    }
  });

  it("a 51 KB batch of 1,000 searches × limit 1,000 is refused up front: 413 ResponseTooLargeError, in well under a second", async () => {
    for (let i = 0; i < 30; i++) await s.store.put(["users", "u1", "many"], `k${i}`, { text: `memory ${i}` });
    const body = { operations: Array.from({ length: 1000 }, () => ({ op: "search", namespace_prefix: [], limit: 1000 })) };
    expect(JSON.stringify(body).length).toBeLessThan(60_000);
    const t0 = performance.now();
    const r = await raw(s.port, "POST", "/store/batch", { headers: user, body });
    const ms = performance.now() - t0;
    counts.count("batch asking for 1,000,000 results", standardError(r, 413, "ResponseTooLargeError"), `${r.status} ${r.text.slice(0, 100)}`);
    expect(standardError(r, 413, "ResponseTooLargeError"), r.text.slice(0, 200)).toBe(true);
    expect(JSON.parse(r.text).message).toMatch(/1000000 results.*maximum 10000 \(maxResultsPerRequest\)/);
    expect(ms).toBeLessThan(1000);
    // 16 of them at once (they once took the server to 4.7 GB): all refused, memory flat.
    const rss0 = process.memoryUsage().rss;
    const many = await Promise.all(Array.from({ length: 16 }, () => raw(s.port, "POST", "/store/batch", { headers: user, body })));
    const grewMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
    for (const m of many) counts.count("batch asking for 1,000,000 results", standardError(m, 413, "ResponseTooLargeError"), `${m.status}`);
    expect(many.map((m) => m.status)).toEqual(many.map(() => 413));
    expect(grewMb).toBeLessThan(200);
    // Within the budget it works: 10 searches × limit 1,000.
    const ok = await raw(s.port, "POST", "/store/batch", { headers: user, body: { operations: body.operations.slice(0, 10) } });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).results).toHaveLength(10);
    // Lists count too.
    const lists = { operations: Array.from({ length: 200 }, () => ({ op: "list_namespaces", limit: 1000 })) };
    const rl = await raw(s.port, "POST", "/store/batch", { headers: user, body: lists });
    counts.count("batch asking for 1,000,000 results", standardError(rl, 413, "ResponseTooLargeError"), `${rl.status}`);
    expect(rl.status).toBe(413);
  });

  it("an answer larger than maxResponseBytes is replaced by a 413 ResponseTooLargeError", async () => {
    const small = await serve({ maxResponseBytes: 20_000 });
    try {
      for (let i = 0; i < 20; i++) await small.store.put(["users", "u1"], `big${i}`, { text: "x".repeat(2000) });
      for (const [path, body] of [
        ["/store/items/search", { namespace_prefix: [], limit: 100 }],
        ["/v1/store/memories/list", { limit: 100 }],
        ["/store/batch", { operations: [{ op: "search", namespace_prefix: [], limit: 100 }] }],
      ] as const) {
        const r = await raw(small.port, "POST", path, { headers: user, body });
        const held = counts.count("answer over maxResponseBytes", standardError(r, 413, "ResponseTooLargeError"), `${path} → ${r.status} ${r.text.length} bytes`);
        expect(held, `${path}: ${r.status} ${r.text.slice(0, 160)}`).toBe(true);
      }
      const ok = await raw(small.port, "POST", "/store/items/search", { headers: user, body: { namespace_prefix: [], limit: 3 } });
      expect(ok.status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it("every refusal has the same body shape: unknown route, undecodable URL, over-long path, bad JSON, oversized body, no credentials, oversized headers", async () => {
    const cases: [RawAnswer, number, string][] = [
      [await raw(s.port, "GET", "/nope", { headers: user }), 404, "NotFoundError"],
      [await raw(s.port, "GET", "/v1/store/memories/%zz", { headers: user }), 400, "InvalidArgumentError"],
      [await raw(s.port, "POST", `/v1/store/memories/${"a".repeat(4000)}`, { headers: user, body: {} }), 400, "InvalidArgumentError"],
      [await send("POST", "/store/batch", "{not json"), 400, "InvalidArgumentError"],
      [await send("POST", "/store/batch", JSON.stringify({ operations: [], pad: "x".repeat(1_100_000) })), 413, "PayloadTooLargeError"],
      [await raw(s.port, "POST", "/store/batch", { body: { operations: [] } }), 401, "UnauthorizedError"],
      [await raw(s.port, "GET", "/ok", { headers: { "x-pad": "x".repeat(20_000) } }), 431, "InvalidArgumentError"],
    ];
    for (const [r, status, name] of cases) {
      const held = counts.count("one error body shape", standardError(r, status, name), `${r.status} ${r.text.slice(0, 120)}`);
      expect(held, `${status} ${name}: got ${r.status} ${r.text.slice(0, 200)}`).toBe(true);
      expect(r.headers["x-frame-options"]).toBe("DENY");
    }
  });
});
