/**
 * The whole route table of a memory server (with the inspector), read from
 * Fastify itself, walked with encoded, doubled-slash, dot-segment,
 * case-changed and trailing-slash spellings of every path, as an end user,
 * an anonymous caller and a caller with a wrong key, over real HTTP on
 * 127.0.0.1. What must hold: a `"service"` route never answers 2xx to any of
 * them; a `"user"` route never to the anonymous or wrong-key caller (on a
 * server that needs credentials); no answer ever carries another user's
 * secret; the victim's data is intact after every request; every answer
 * carries the security headers. A route without an access rule fails here.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { createMemoryServer, type MemoryServerOptions } from "../../src/server/index.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { API_KEY, bearerAuth } from "../server/support.js";
import { raw, type RawAnswer } from "./server-raw-http.js";
import { pathVariants, routeTable, type TableRoute } from "./server-route-table.js";
import { tally } from "./server-counts.js";

const counts = tally("server-routes.test.ts");
afterAll(() => counts.write());

const SECRET = `VICTIM-SECRET-${randomUUID()}`;
const TENANT_SECRET = `TENANT-SECRET-${randomUUID()}`;

/** A body that would hurt the victim if the route accepted it for this caller (unknown routes get `{}`). */
function harmfulRequest(route: TableRoute): { query: string; body?: unknown } {
  const victim = { namespace: ["users", "victim"], key: "secret" };
  const table: Record<string, { query?: string; body?: unknown }> = {
    "GET /store/items": { query: "?namespace=users.victim&key=secret" },
    "PUT /store/items": { body: { ...victim, value: { text: "pwned" } } },
    "DELETE /store/items": { body: victim },
    "POST /store/items/search": { body: { namespace_prefix: ["users", "victim"] } },
    "POST /store/namespaces": { body: { prefix: ["users"] } },
    "POST /store/batch": {
      body: { operations: [{ op: "search", namespace_prefix: [] }, { op: "list_namespaces" }, { op: "put", ...victim, value: null }] },
    },
    "POST /v1/store/memories": { body: { text: "pwned", user_id: "victim", id: "secret" } },
    "POST /v1/store/memories/list": { body: { user_id: "victim" } },
    "POST /v1/store/search": { body: { query: "secret", user_id: "victim" } },
    "POST /v1/store/memories/forget": { body: { user_id: "victim", all: true } },
    "POST /v1/store/memories/:id": { body: { user_id: "victim" } },
    "PUT /v1/store/memories/:id": { body: { user_id: "victim", text: "pwned" } },
    "DELETE /v1/store/memories/:id": { body: { user_id: "victim" } },
    "GET /inspector/api/memories": { query: `?namespace=${encodeURIComponent('["users","victim"]')}` },
    "DELETE /inspector/api/memories": { body: victim },
    "POST /inspector/api/forget": { body: { namespace: ["users", "victim"], confirm: "users.victim" } },
  };
  const hit = table[`${route.method === "HEAD" ? "GET" : route.method} ${route.url}`];
  const body = hit?.body ?? (route.method === "GET" || route.method === "HEAD" ? undefined : {});
  return { query: hit?.query ?? "", body: route.method === "GET" || route.method === "HEAD" ? undefined : body };
}

const CALLERS: Record<string, Record<string, string>> = {
  "end user": { authorization: "Bearer user:attacker" },
  anonymous: {},
  "wrong key": { "x-api-key": "not-the-key-0000" },
};

interface Served {
  app: FastifyInstance;
  store: HNSWStore;
  port: number;
  cleanup: () => void;
}

async function serve(extra: Partial<MemoryServerOptions>): Promise<Served> {
  const tmp = tempDir("security-routes-");
  const store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
  await store.put(["users", "victim"], "secret", { text: SECRET });
  await store.put(["users", "victim", "notes"], "n1", { text: SECRET });
  await store.put(["tenants", "t1"], "cfg", { text: TENANT_SECRET });
  const app = createMemoryServer({
    store,
    logger: false,
    plugins: [async (a) => void (await a.register(inspectorPlugin, { store }))],
    ...extra,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return { app, store, port: typeof address === "object" && address ? address.port : 0, cleanup: tmp.cleanup };
}

async function intact(store: HNSWStore): Promise<boolean> {
  const a = await store.get(["users", "victim"], "secret");
  const b = await store.get(["users", "victim", "notes"], "n1");
  const c = await store.get(["tenants", "t1"], "cfg");
  return a?.value.text === SECRET && b?.value.text === SECRET && c?.value.text === TENANT_SECRET;
}

const HEADERS = { "x-frame-options": "DENY", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };
const headersOk = (r: RawAnswer) =>
  Object.entries(HEADERS).every(([k, v]) => r.headers[k] === v) && /frame-ancestors 'none'/.test(String(r.headers["content-security-policy"]));

/** Walks every route × spelling × caller; returns the number of requests. */
async function walk(s: Served, label: string, expectRefused: (access: string, caller: string) => boolean): Promise<number> {
  const table = routeTable(s.app);
  let n = 0;
  for (const route of table) {
    const rule = s.app.memoryRoutes?.find((r) => r.method === route.method && r.url === route.url);
    const access = rule?.access ?? "none"; // no rule: must be closed to every caller
    const concrete = route.url.replace(/:[a-z]+/gi, "secret");
    const { query, body } = harmfulRequest(route);
    for (const variant of pathVariants(concrete)) {
      for (const [caller, headers] of Object.entries(CALLERS)) {
        const r = await raw(s.port, route.method, variant.path + query, { headers, body });
        n++;
        const leaked = r.text.includes(SECRET) || r.text.includes(TENANT_SECRET);
        const ok2xx = r.status >= 200 && r.status < 300;
        const mustRefuse = access === "none" || expectRefused(access, caller);
        const detail = `${label}: ${route.method} ${variant.path}${query} as ${caller} → ${r.status} ${r.text.slice(0, 120)}`;
        const held = !leaked && !(mustRefuse && ok2xx) && (await intact(s.store));
        counts.count(`${variant.kind} as ${caller}`, held, detail);
        counts.count("security headers on every answer", headersOk(r), detail);
      }
    }
  }
  return n;
}

describe("the route table under path tricks", () => {
  let withAuth: Served;
  let withAnonymous: Served;

  beforeAll(async () => {
    withAuth = await serve({ apiKey: API_KEY, authenticate: bearerAuth });
    withAnonymous = await serve({ apiKey: API_KEY, authenticate: bearerAuth, allowUnauthenticated: true });
  });
  afterAll(async () => {
    for (const s of [withAuth, withAnonymous]) {
      await s?.app.close();
      s?.cleanup();
    }
  });

  it("the table read from Fastify is the table the server enforces, and every route declares an access rule", () => {
    const table = routeTable(withAuth.app);
    expect(table.length).toBeGreaterThanOrEqual(20);
    const recorded = withAuth.app.memoryRoutes.map((r) => `${r.method} ${r.url}`).sort();
    expect(table.map((r) => `${r.method} ${r.url}`).sort()).toEqual(recorded);
    const unruled = withAuth.app.memoryRoutes.filter((r) => r.access === undefined);
    for (const r of withAuth.app.memoryRoutes) counts.count("route declares an access rule", r.access !== undefined, `${r.method} ${r.url}`);
    expect(unruled).toEqual([]);
    // The inspector's API is for services only.
    for (const r of withAuth.app.memoryRoutes.filter((x) => x.url.startsWith("/inspector/api/"))) expect(r.access, r.url).toBe("service");
  });

  it("a server that needs credentials: service routes refuse all three callers, user routes refuse anonymous and wrong-key callers", async () => {
    const n = await walk(withAuth, "auth", (access, caller) => access === "service" || (access === "user" && caller !== "end user"));
    expect(n).toBeGreaterThan(500);
    expect(counts.breaches).toEqual([]);
  });

  it("allowUnauthenticated with auth: anonymous is an end user, still refused by service routes and confined elsewhere", async () => {
    await walk(withAnonymous, "auth+anonymous", (access, caller) => access === "service" || (access === "user" && caller === "wrong key"));
    expect(counts.breaches).toEqual([]);
  });

  it("the exact attacks of issue 21: 403 for an end user, nothing deleted", async () => {
    const user = CALLERS["end user"];
    for (const [method, path, body] of [
      ["GET", "/%69nspector/api/namespaces", undefined],
      ["DELETE", "/inspector/%61pi/memories", { namespace: ["users", "victim"], key: "secret" }],
      ["POST", "/inspector/api/%66orget", { namespace: ["users", "victim"], confirm: "users.victim" }],
    ] as const) {
      const r = await raw(withAuth.port, method, path, { headers: user, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(r.text)).toMatchObject({ error: "ForbiddenError", statusCode: 403 });
    }
    expect(await intact(withAuth.store)).toBe(true);
  });

  it("a route added without an access rule is refused to everyone, even a service, whatever its spelling", async () => {
    const s = await serve({ apiKey: API_KEY, authenticate: bearerAuth, plugins: [async (a) => void a.get("/plugin/report", async () => ({ secret: SECRET }))] });
    try {
      expect(s.app.memoryRoutes.find((r) => r.url === "/plugin/report")?.access).toBeUndefined();
      for (const variant of pathVariants("/plugin/report")) {
        for (const headers of [{ "x-api-key": API_KEY }, ...Object.values(CALLERS)]) {
          const r = await raw(s.port, "GET", variant.path, { headers });
          const held = r.status !== 200 && !r.text.includes(SECRET);
          counts.count("route without an access rule", held, `${variant.path} → ${r.status}`);
        }
      }
      const r = await raw(s.port, "GET", "/plugin/report", { headers: { "x-api-key": API_KEY } });
      expect(JSON.parse(r.text)).toMatchObject({ error: "AccessRuleMissingError", statusCode: 403 });
      expect(counts.breaches).toEqual([]);
    } finally {
      await s.app.close();
      s.cleanup();
    }
  });

  it("a service key still reaches every service route (the rules do not lock out the operator)", async () => {
    const r = await raw(withAuth.port, "GET", "/inspector/api/namespaces", { headers: { "x-api-key": API_KEY } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).namespaces.map((n: { namespace: string[] }) => n.namespace.join("."))).toContain("users.victim");
  });
});
