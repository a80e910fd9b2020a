/**
 * Every log line of a memory server run with request logging on, captured
 * and scanned: requests over the whole route table carry a secret in path
 * labels and keys, query strings, filter values, namespaces, bad API keys,
 * and in errors the store throws (500s). No line may contain it. With
 * `logValues: true` (the operator's opt-in) the URLs and messages are
 * logged, which also proves the scan can see a leak. Then the Host checks:
 * a request without Host or with two gets the server's own 400 with its
 * security headers, never Node's bare answer.
 */
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { createMemoryServer, type MemoryServerOptions } from "../../src/server/index.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { SECURITY_HEADERS } from "../../src/server/security-headers.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { raw } from "./server-raw-http.js";
import { routeTable } from "./server-route-table.js";
import { tally } from "./server-counts.js";
import net from "node:net";

const counts = tally("log-scan.test.ts");
afterAll(() => counts.write());

const SECRET = "LOGLEAK7q2";
const API_KEY = "log-scan-service-key-1234";

/** A store whose batch throws an error naming the secret when an operation mentions "explode". */
function explodingStore(inner: HNSWStore): BaseStore {
  const store = Object.create(inner) as HNSWStore;
  store.batch = (async (ops: unknown[]) => {
    if (JSON.stringify(ops).includes("explode")) throw new Error(`store blew up on ${SECRET}\nsecond line ${SECRET}`);
    return inner.batch(ops as never);
  }) as never;
  return store;
}

async function serve(extra: Partial<MemoryServerOptions>) {
  const tmp = tempDir("security-logs-");
  const inner = new HNSWStore({ path: tmp.dir, index: { dims: 8, embeddings: new FakeEmbeddings({ dims: 8 }), fields: ["text"] } });
  await inner.put(["users", SECRET], SECRET, { text: `note ${SECRET}`, email: SECRET });
  const lines: string[] = [];
  const app = createMemoryServer({
    store: explodingStore(inner),
    apiKey: API_KEY,
    closeStore: false,
    plugins: [async (a) => void (await a.register(inspectorPlugin, { store: inner }))],
    logger: { level: "trace", stream: { write: (line: string) => void lines.push(line) } },
    ...extra,
  } as MemoryServerOptions);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { app, port, lines, close: async () => (await app.close(), await inner.close(), tmp.cleanup()) };
}

/** Requests over the whole route table, each carrying SECRET where a client would put values. */
async function drive(port: number, app: Awaited<ReturnType<typeof serve>>["app"]): Promise<number> {
  let sent = 0;
  const key = { "x-api-key": API_KEY };
  const bodies = [
    { namespace: ["users", SECRET], key: SECRET, value: { text: SECRET } },
    { namespace_prefix: ["users", SECRET], filter: { email: SECRET }, query: SECRET },
    { namespace_prefix: [`${SECRET}.dot`], filter: { email: { $bogus: SECRET } } },
    { operations: [{ op: "search", namespace_prefix: ["users", SECRET], filter: { email: SECRET }, query: SECRET }] },
    { operations: [{ op: "put", namespace: ["users", `${SECRET}.x`], key: SECRET, value: { text: SECRET } }] },
    { operations: [{ op: "get", namespace: ["users", "explode"], key: SECRET }] },
    { text: SECRET, filter: { email: SECRET }, limit: `${SECRET}` },
  ];
  for (const route of routeTable(app)) {
    const path = route.url.replace(/:[a-z_]+/gi, SECRET);
    const query = `?namespace=users.${SECRET}&key=${SECRET}&filter=${encodeURIComponent(JSON.stringify({ email: SECRET }))}`;
    for (const headers of [key, { "x-api-key": `${SECRET}-wrong-key` }, {}]) {
      if (route.method === "GET" || route.method === "HEAD" || route.method === "DELETE") {
        await raw(port, route.method, path + query, { headers });
        sent++;
      } else {
        for (const body of bodies) {
          await raw(port, route.method, path + query, { headers, body });
          sent++;
        }
      }
    }
  }
  await raw(port, "GET", `/no/such/${SECRET}?q=${SECRET}`, { headers: key });
  await raw(port, "POST", "/store/batch", { headers: key, rawBody: `{"operations": [${SECRET}` });
  return sent + 2;
}

describe("request logs carry ids, routes, statuses and timings, never values", () => {
  it("every log line of a server run with logging on is free of labels, keys, filter values and query strings", async () => {
    const s = await serve({});
    try {
      const sent = await drive(s.port, s.app);
      await new Promise((r) => setTimeout(r, 50));
      expect(s.lines.length).toBeGreaterThan(sent); // incoming + completed (+ refused) per request
      for (const line of s.lines) counts.count("log line free of client values", !line.includes(SECRET), line.slice(0, 300));
      const routes = s.lines.map((l) => JSON.parse(l) as { req?: { route?: string }; res?: { statusCode?: number }; reqId?: string; responseTime?: number });
      expect(routes.some((l) => l.req?.route === "/store/items/search")).toBe(true);
      expect(routes.some((l) => typeof l.responseTime === "number" && typeof l.res?.statusCode === "number")).toBe(true);
      expect(s.lines.some((l) => l.includes('"request failed"') && l.includes(" at "))).toBe(true); // a 500 keeps its stack frames
      expect(counts.breaches).toEqual([]);
    } finally {
      await s.close();
    }
  }, 120_000);

  it("logValues: true logs URLs and messages (the operator's opt-in), so the scan above can see a leak", async () => {
    const s = await serve({ logValues: true });
    try {
      await raw(s.port, "GET", `/no/such/${SECRET}`, { headers: { "x-api-key": API_KEY } });
      await raw(s.port, "POST", "/store/batch", { headers: { "x-api-key": API_KEY }, body: { operations: [{ op: "put", namespace: ["users", `${SECRET}.x`], key: "k", value: { text: "t" } }] } });
      const leaked = s.lines.filter((l) => l.includes(SECRET));
      counts.count("logValues opt-in logs values", leaked.length >= 2, `${leaked.length} lines`);
      expect(leaked.length).toBeGreaterThanOrEqual(2);
    } finally {
      await s.close();
    }
  });
});

/** Writes `request` (raw bytes) to the server and returns the whole answer. */
function rawBytes(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(request));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (c) => (text += c));
    socket.on("end", () => resolve(text));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("Host: exactly one, refused by the server itself", () => {
  it("no Host, or two Host headers: the server's 400 InvalidArgumentError with its security headers", async () => {
    for (const extra of [{}, { allowUnauthenticated: true }] as Partial<MemoryServerOptions>[]) {
      const s = await serve({ ...extra, logger: false });
      try {
        const requests = [
          "GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n",
          "GET /ok HTTP/1.0\r\n\r\n",
          `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`,
          `GET /ok HTTP/1.1\r\nHost: attacker.example\r\nHost: 127.0.0.1:${s.port}\r\nConnection: close\r\n\r\n`,
          `POST /store/items/search HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nhost: 127.0.0.1:${s.port}\r\nx-api-key: ${API_KEY}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nConnection: close\r\n\r\n{}`,
          `POST /store/items/search HTTP/1.1\r\nx-api-key: ${API_KEY}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nConnection: close\r\n\r\n{}`,
        ];
        for (const request of requests) {
          const answer = await rawBytes(s.port, request);
          const [head, body = ""] = answer.split("\r\n\r\n");
          const headers = head.toLowerCase();
          const held =
            /^HTTP\/1\.[01] 400/.test(answer) &&
            Object.entries(SECURITY_HEADERS).every(([k, v]) => headers.includes(`${k}: ${v.toLowerCase()}`)) &&
            headers.includes("content-security-policy:") &&
            /"error":"InvalidArgumentError"/.test(body) &&
            /exactly one Host/.test(body);
          counts.count("missing or repeated Host refused with the server's headers", held, `${JSON.stringify(request.slice(0, 60))} → ${answer.slice(0, 200)}`);
        }
        // One Host is still served.
        const ok = await raw(s.port, "GET", "/ok");
        expect(ok.status).toBe(200);
      } finally {
        await s.close();
      }
    }
    expect(counts.breaches).toEqual([]);
  });
});
