/**
 * The DNS-rebinding guard over real HTTP: a server without credentials (and
 * the anonymous path of one with them, and the inspector on its own)
 * answers only loopback `Host` names with its own port, on every route of
 * its table; any other Host is a 421 HostNotAllowedError with no data.
 */
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { createMemoryServer, type MemoryServerOptions } from "../../src/server/index.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { API_KEY, bearerAuth } from "../server/support.js";
import { raw } from "./server-raw-http.js";
import { routeTable } from "./server-route-table.js";
import { tally } from "./server-counts.js";

const counts = tally("host-header.test.ts");
afterAll(() => counts.write());

const SECRET = "HOST-GUARD-SECRET-5d1f";

async function serve(extra: Partial<MemoryServerOptions>) {
  const tmp = tempDir("security-host-");
  const store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
  await store.put(["users", "victim"], "secret", { text: SECRET });
  const app = createMemoryServer({ store, logger: false, plugins: [async (a) => void (await a.register(inspectorPlugin, { store }))], ...extra } as MemoryServerOptions);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { app, store, port, close: async () => (await app.close(), tmp.cleanup()) };
}

const foreignHosts = (port: number) => [
  `attacker.example:${port}`,
  "attacker.example",
  `127.0.0.1.attacker.example:${port}`,
  `localhost.attacker.example:${port}`,
  `0.0.0.0:${port}`,
  `127.0.0.1:${port === 1 ? 2 : 1}`,
  `localhost:${port + 1}`,
  `[::ffff:127.0.0.1]:${port}`,
  `127.1:${port}`,
  `2130706433:${port}`,
  "",
  `127.0.0.1:${port}@attacker.example`,
  `attacker.example#127.0.0.1:${port}`,
];

describe("Host allowlist for servers without credentials", () => {
  let open: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    open = await serve({ allowUnauthenticated: true });
  });
  afterAll(async () => open?.close());

  it("every route of a keyless server refuses every foreign Host with 421 HostNotAllowedError", async () => {
    for (const route of routeTable(open.app)) {
      const path = route.url.replace(/:[a-z]+/gi, "secret");
      const body = route.method === "GET" || route.method === "HEAD" ? undefined : { namespace_prefix: [], operations: [{ op: "search", namespace_prefix: [] }] };
      for (const host of foreignHosts(open.port)) {
        const r = await raw(open.port, route.method, path, { host, body });
        const named = route.method === "HEAD" || JSON.parse(r.text || "{}").error === "HostNotAllowedError";
        const held = r.status === 421 && named && !r.text.includes(SECRET);
        counts.count("foreign Host on a keyless server", held, `${route.method} ${path} Host ${JSON.stringify(host)} → ${r.status} ${r.text.slice(0, 100)}`);
      }
      const none = await raw(open.port, route.method, path, { host: null, body });
      counts.count("no Host header on a keyless server", none.status >= 400 && !none.text.includes(SECRET), `${route.method} ${path} → ${none.status}`);
    }
    expect(counts.breaches).toEqual([]);
    expect((await open.store.get(["users", "victim"], "secret"))?.value.text).toBe(SECRET);
  });

  it("loopback names with the server's port are served", async () => {
    for (const host of [`127.0.0.1:${open.port}`, `localhost:${open.port}`, `[::1]:${open.port}`, `LOCALHOST:${open.port}`]) {
      expect((await raw(open.port, "GET", "/ok", { host })).status, host).toBe(200);
      const r = await raw(open.port, "POST", "/store/items/search", { host, body: { namespace_prefix: ["users"] } });
      expect(r.status, host).toBe(200);
      expect(r.text).toContain(SECRET);
    }
  });

  it("the refusal says what to do", async () => {
    const r = await raw(open.port, "GET", "/", { host: `attacker.example:${open.port}` });
    expect(r.status).toBe(421);
    const body = JSON.parse(r.text);
    expect(body).toMatchObject({ error: "HostNotAllowedError", statusCode: 421 });
    expect(body.message).toMatch(/attacker\.example.*127\.0\.0\.1, localhost, \[::1\].*allowedHosts/);
    expect(r.headers["x-frame-options"]).toBe("DENY");
  });

  it("allowedHosts replaces the list; entries with a port pin the port", async () => {
    const s = await serve({ allowUnauthenticated: true, allowedHosts: ["memory.internal", "box:9999"] });
    try {
      expect((await raw(s.port, "GET", "/ok", { host: `memory.internal:${s.port}` })).status).toBe(200);
      expect((await raw(s.port, "GET", "/ok", { host: "box:9999" })).status).toBe(200);
      expect((await raw(s.port, "GET", "/ok", { host: `box:${s.port}` })).status).toBe(421);
      expect((await raw(s.port, "GET", "/ok", { host: `127.0.0.1:${s.port}` })).status).toBe(421);
      expect(() => createMemoryServer({ store: s.store, allowUnauthenticated: true, allowedHosts: "localhost" as unknown as string[] })).toThrow(/allowedHosts must be an array/);
    } finally {
      await s.close();
    }
  });

  it("startMemoryServer on another loopback address answers to that address too", async () => {
    const tmp = tempDir("security-host-start-");
    const { startMemoryServer } = await import("../../src/server/index.js");
    const server = await startMemoryServer({ store: new HNSWStore({ path: tmp.dir }), allowUnauthenticated: true, host: "127.0.0.2", port: 0, handleSignals: false, logger: false });
    try {
      const port = Number(new URL(server.url).port);
      const r = await fetch(`${server.url}/ok`);
      expect(r.status).toBe(200);
      expect((await raw(port, "GET", "/ok", { address: "127.0.0.2", host: `attacker.example:${port}` })).status).toBe(421);
      expect((await raw(port, "GET", "/ok", { address: "127.0.0.2", host: `localhost:${port}` })).status).toBe(200);
    } finally {
      await server.close();
      tmp.cleanup();
    }
  });

  it("with credentials configured, the anonymous path is guarded and authenticated callers are not", async () => {
    const s = await serve({ apiKey: API_KEY, authenticate: bearerAuth, allowUnauthenticated: true });
    try {
      const host = `attacker.example:${s.port}`;
      const anon = await raw(s.port, "POST", "/v1/store/memories/list", { host, body: {} });
      counts.count("foreign Host on the anonymous path", anon.status === 421, `${anon.status} ${anon.text.slice(0, 100)}`);
      expect(anon.status).toBe(421);
      expect((await raw(s.port, "POST", "/store/namespaces", { host, headers: { "x-api-key": API_KEY }, body: {} })).status).toBe(200);
      expect((await raw(s.port, "POST", "/v1/store/memories/list", { host, headers: { authorization: "Bearer user:amy" }, body: {} })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("the inspector on a bare Fastify app is a keyless local tool: loopback Host only, security headers", async () => {
    const tmp = tempDir("security-host-bare-");
    const store = new HNSWStore({ path: tmp.dir });
    await store.put(["users", "victim"], "secret", { text: SECRET });
    const app = Fastify();
    await app.register(inspectorPlugin, { store });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as { port: number }).port;
    try {
      for (const path of ["/", "/inspector/api/namespaces", `/inspector/api/memories?namespace=users.victim`]) {
        for (const host of foreignHosts(port)) {
          const r = await raw(port, "GET", path, { host });
          counts.count("foreign Host on the bare inspector", r.status === 421 && !r.text.includes(SECRET), `${path} ${host} → ${r.status}`);
        }
        const ok = await raw(port, "GET", path, { host: `127.0.0.1:${port}` });
        expect(ok.status, path).toBe(200);
        expect(ok.headers["x-frame-options"]).toBe("DENY");
        expect(String(ok.headers["content-security-policy"])).toMatch(/frame-ancestors 'none'/);
      }
      expect(counts.breaches).toEqual([]);
    } finally {
      await app.close();
      await store.close();
      tmp.cleanup();
    }
  });
});
