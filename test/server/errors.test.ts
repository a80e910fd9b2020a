/**
 * Bad input, limits, auth modes and store errors, over real HTTP on
 * 127.0.0.1 with a real HNSWStore on disk: every failure is a JSON body
 * naming the problem, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore, InvalidArgumentError, InvalidNamespaceError, InvalidValueError, RemoteStore, StoreClosedError, StoreLockedError } from "../../src/index.js";
import { createMemoryServer, isLoopback, scopeFor, startMemoryServer } from "../../src/server/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { API_KEY, asUser, call, startTestServer, type TestServer } from "./support.js";

let server: TestServer;
const key = { "x-api-key": API_KEY };

beforeAll(async () => {
  server = await startTestServer({ server: { bodyLimit: 64 * 1024, maxLimit: 50, maxBatchOperations: 20 } });
  await server.store.put(["users", "u"], "keep", { text: "untouched" });
});
afterAll(async () => {
  await server?.close();
});

const expectUnchanged = async () => {
  expect(await server.store.count([])).toBe(1);
  expect((await server.store.get(["users", "u"], "keep"))!.value).toEqual({ text: "untouched" });
};

describe("bad input gets a 4xx naming the problem, and changes nothing", () => {
  it.each([
    ["label with a dot", { namespace: ["users", "a.b"], key: "k", value: { text: "x" } }, 400, "InvalidNamespaceError", /'a\.b' contains '\.'/],
    ["non-string label", { namespace: ["users", 7], key: "k", value: { text: "x" } }, 400, "InvalidNamespaceError", /must be a string/],
    ["empty namespace", { namespace: [], key: "k", value: { text: "x" } }, 400, "InvalidNamespaceError", /cannot be empty/],
    ["value not an object", { namespace: ["users", "u"], key: "k", value: ["a"] }, 400, "InvalidValueError", /plain JSON object/],
    ["value a string", { namespace: ["users", "u"], key: "k", value: "text" }, 400, "InvalidValueError", /plain JSON object/],
    ["key not a string", { namespace: ["users", "u"], key: 5, value: { text: "x" } }, 400, "InvalidArgumentError", /key must be string/],
    ["index of numbers", { namespace: ["users", "u"], key: "k", value: { text: "x" }, index: [1] }, 400, "InvalidArgumentError", /index/],
  ])("PUT /store/items: %s", async (_name, body, status, error, message) => {
    const r = await call(server.url, "PUT", "/store/items", body, key);
    expect(r.status).toBe(status);
    expect(r.body.error).toBe(error);
    expect(r.body.message).toMatch(message);
    await expectUnchanged();
  });

  it("a bad filter operator, a limit above the maximum, a negative offset", async () => {
    const bad = await call(server.url, "POST", "/store/items/search", { namespace_prefix: ["users"], filter: { n: { $ge: 3 } } }, key);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "InvalidFilterError", message: expect.stringMatching(/unknown operator '\$ge'/) });
    const big = await call(server.url, "POST", "/store/items/search", { namespace_prefix: ["users"], limit: 51 }, key);
    expect(big.body).toMatchObject({ error: "InvalidArgumentError", message: expect.stringMatching(/limit 51 .* maximum 50/) });
    const bigList = await call(server.url, "POST", "/store/namespaces", { limit: 500 }, key);
    expect(bigList.body.error).toBe("InvalidArgumentError");
    const neg = await call(server.url, "POST", "/store/items/search", { namespace_prefix: ["users"], offset: -1 }, key);
    expect(neg.status).toBe(400);
  });

  it("unparsable JSON, an oversized body, unknown fields in a batch, too many operations", async () => {
    const junk = await call(server.url, "PUT", "/store/items", "{not json", key);
    expect(junk.status).toBe(400);
    expect(junk.body.error).toBe("InvalidArgumentError");
    const huge = await call(server.url, "PUT", "/store/items", { namespace: ["users", "u"], key: "big", value: { text: "x".repeat(100_000) } }, key);
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe("PayloadTooLargeError");
    const unknown = await call(server.url, "POST", "/store/batch", { operations: [{ op: "put", namespace: ["users", "u"], key: "k", value: {}, colour: "red" }] }, key);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/additional properties/);
    const many = Array.from({ length: 21 }, (_, i) => ({ op: "get", namespace: ["users"], key: `k${i}` }));
    expect((await call(server.url, "POST", "/store/batch", { operations: many }, key)).body.message).toMatch(/21 operations .* maximum 20/);
    await expectUnchanged();
  });

  it("a batch with one bad operation writes none of it; RemoteStore rebuilds the named classes", async () => {
    const remote = new RemoteStore({ url: server.url, apiKey: API_KEY });
    await expect(
      remote.batch([
        { namespace: ["users", "u"], key: "first", value: { text: "ok" } },
        { namespace: ["users", "u"], key: "second", value: { n: { $bad: 1 } }, index: ["n"] },
        { namespacePrefix: ["users"], filter: { n: { $ge: 1 } }, limit: 10, offset: 0 },
      ]),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(remote.put(["users", "x.y"], "k", { text: "x" })).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(remote.search(["users"], { filter: { n: { $ge: 1 } } })).rejects.toThrow(/unknown operator/);
    await expect(remote.put(["users", "u"], "k", { when: new Date() })).rejects.toBeInstanceOf(InvalidValueError);
    await expectUnchanged();
  });

  it("unknown routes are a named 404; the health check needs no credentials", async () => {
    expect((await call(server.url, "GET", "/nope", undefined, key)).body).toMatchObject({ error: "NotFoundError", statusCode: 404 });
    expect(await call(server.url, "GET", "/ok")).toEqual({ status: 200, body: { ok: true } });
    expect(await new RemoteStore({ url: server.url }).ping()).toBe(true);
  });
});

describe("store errors map to 503 with their name", () => {
  it("a locked directory: StoreLockedError (503), rebuilt on the client with the pid", async () => {
    const second = createMemoryServer({
      store: new HNSWStore({ path: server.dir, index: { dims: 32, embeddings: new FakeEmbeddings({ dims: 32 }), fields: ["text"] } }),
      apiKey: API_KEY,
      logger: false,
    });
    await second.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(second.server.address() as { port: number }).port}`;
    try {
      const r = await call(url, "POST", "/store/items/search", { namespace_prefix: [] }, key);
      expect(r.status).toBe(503);
      expect(r.body.error).toBe("StoreLockedError");
      const err = await new RemoteStore({ url, apiKey: API_KEY }).get(["users", "u"], "keep").catch((e) => e);
      expect(err).toBeInstanceOf(StoreLockedError);
      expect(err.pid).toBe(process.pid);
    } finally {
      await second.close();
    }
  });

  it("a closed store: StoreClosedError (503)", async () => {
    const { dir, cleanup } = tempDir("memory-server-closed-");
    const store = new HNSWStore({ path: dir });
    const app = createMemoryServer({ store, apiKey: API_KEY, logger: false });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      await store.put(["a"], "k", { text: "x" });
      await store.close();
      const r = await call(url, "GET", "/store/items?namespace=a&key=k", undefined, key);
      expect(r).toMatchObject({ status: 503, body: { error: "StoreClosedError" } });
      await expect(new RemoteStore({ url, apiKey: API_KEY }).get(["a"], "k")).rejects.toBeInstanceOf(StoreClosedError);
    } finally {
      await app.close();
      cleanup();
    }
  });
});

describe("auth modes", () => {
  it("refuses to build without some way in, or to listen without auth off loopback", async () => {
    const store = new HNSWStore();
    expect(() => createMemoryServer({ store })).toThrow(InvalidArgumentError);
    expect(() => createMemoryServer({ store, apiKey: "short" })).toThrow(/at least 8/);
    await expect(startMemoryServer({ store, allowUnauthenticated: true, host: "0.0.0.0", port: 0, logger: false, handleSignals: false })).rejects.toThrow(/loopback only/);
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.5")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("10.0.0.1")).toBe(false);
    expect(isLoopback("::ffff:192.168.1.2")).toBe(false);
  });

  it("allowUnauthenticated without auth: full access on loopback (a dev server); startMemoryServer's close() closes the store", async () => {
    const { dir, cleanup } = tempDir("memory-server-open-");
    const store = new HNSWStore({ path: dir });
    const running = await startMemoryServer({ store, allowUnauthenticated: true, port: 0, logger: false, handleSignals: false });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await call(running.url, "PUT", "/store/items", { namespace: ["shared", "x"], key: "k", value: { text: "hi" } })).status).toBe(204);
      expect((await call(running.url, "GET", "/store/items?namespace=shared.x&key=k")).body.value).toEqual({ text: "hi" });
      const mem = await call(running.url, "POST", "/v1/store/memories", { text: "for someone", user_id: "zoe" });
      expect(mem.status).toBe(201);
      expect(await store.get(["users", "zoe"], mem.body.id)).not.toBeNull();
    } finally {
      await running.close();
      await running.close();
    }
    await expect(store.get(["shared", "x"], "k")).rejects.toBeInstanceOf(StoreClosedError);
    const reopened = new HNSWStore({ path: dir });
    expect((await reopened.get(["shared", "x"], "k"))!.value).toEqual({ text: "hi" });
    await reopened.close();
    cleanup();
  });

  it("allowUnauthenticated with auth configured: a request without credentials is the end user 'anonymous'", async () => {
    const open = await startTestServer({ server: { allowUnauthenticated: true } });
    try {
      await call(open.url, "PUT", "/store/items", { namespace: ["notes"], key: "k", value: { text: "anon" } });
      expect(await open.store.get(["users", "anonymous", "notes"], "k")).not.toBeNull();
      const made = await call(open.url, "POST", "/v1/store/memories", { text: "anon memory" });
      expect(await open.store.get(["users", "anonymous"], made.body.id)).not.toBeNull();
      expect((await call(open.url, "POST", "/v1/store/memories/list", { user_id: "bob" })).status).toBe(403);
    } finally {
      await open.close();
    }
  });

  it("plugins are registered behind the auth hook and see the caller's scope and the store", async () => {
    const plugin = async (app: import("fastify").FastifyInstance) => {
      app.get("/plugin/unruled", async () => ({ leaked: true })); // no access rule: closed to everyone
      app.get("/inspector/whoami", { config: { access: "user" } }, async (request) => {
        const scope = scopeFor(request);
        const items = await app.memoryStore.search(scope.toStore([]), { limit: 100 });
        return { kind: scope.kind, identity: scope.identity ?? null, items: items.length };
      });
    };
    const withPlugin = await startTestServer({ server: { plugins: [plugin] } });
    try {
      await withPlugin.store.put(["users", "amy", "n"], "k", { text: "amy" });
      await withPlugin.store.put(["users", "ben", "n"], "k", { text: "ben" });
      expect((await call(withPlugin.url, "GET", "/inspector/whoami")).status).toBe(401);
      expect((await call(withPlugin.url, "GET", "/inspector/whoami", undefined, asUser("amy"))).body).toEqual({ kind: "user", identity: "amy", items: 1 });
      expect((await call(withPlugin.url, "GET", "/inspector/whoami", undefined, key)).body).toEqual({ kind: "service", identity: null, items: 2 });
      const unruled = await call(withPlugin.url, "GET", "/plugin/unruled", undefined, key);
      expect(unruled).toMatchObject({ status: 403, body: { error: "AccessRuleMissingError" } });
    } finally {
      await withPlugin.close();
    }
  });
});

