/**
 * Secrets through every error path: connection URLs with passwords (in the
 * user part, with `/`, `@`, `?`, `#` in them, in the query), credentials in
 * a memory server URL, refused and unreachable requests. Every error is
 * scanned whole — message, `cause` chain, stack, own fields — for the
 * secret. A request fetch refused to send never says it may have been
 * applied.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryError, memoryStoreFromEnv, RemoteStore, RemoteStoreError } from "../../src/index.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { redactUrl } from "../../src/store/redact-url.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tally } from "./server-counts.js";

const counts = tally("secrets-in-errors.test.ts");
afterAll(() => counts.write());

const SECRET = "Pa55-s3cr3t";

/** Everything an error carries that could reach a log: message, stack, causes, own fields. */
export function errorText(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, i = 0; c && i < 8; c = (c as { cause?: unknown }).cause, i++) {
    const err = c as Error;
    parts.push(String(err), String(err.stack ?? ""));
    try {
      parts.push(JSON.stringify(err, Object.getOwnPropertyNames(err)));
    } catch {
      /* circular: the parts above are enough */
    }
  }
  return parts.join("\n");
}

/** Runs `call` (sync or async); returns what it threw (or fails when it did not). */
async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  return undefined;
}

const index = { dims: 8, embeddings: new FakeEmbeddings({ dims: 8 }) };

// Passwords fetch, pg and URL parsers each read differently; all hold SECRET.
const DATABASE_URLS = [
  `postgres://u:${SECRET}/word@127.0.0.1:1/x`,
  `postgres://u:${SECRET}@127.0.0.1:1/x`,
  `postgresql://u:${SECRET}@127.0.0.1:1/x?sslmode=require`,
  `postgres://u:${SECRET}@@127.0.0.1:1/x`,
  `postgres://u:${SECRET}?x@127.0.0.1:1/x`,
  `postgres://u:${SECRET}#x@127.0.0.1:1/x`,
  `postgres://u:a/${SECRET}/b@127.0.0.1:1/x`,
  `postgres://${SECRET}@127.0.0.1:1/x`,
  `postgres://u@127.0.0.1:1/x?password=${SECRET}`,
  `postgres://u:${SECRET}@[::1/x`,
  `postgres://u:${SECRET}@127.0.0.1:99999/x`,
  `mysql://u:${SECRET}@127.0.0.1:1/x`,
];

const REMOTE_URLS = [`http://u:${SECRET}@127.0.0.1:8787`, `https://${SECRET}@memory.example`, `http://u:${SECRET}/x@127.0.0.1:8787`, `http://u:${SECRET}@[::1`, `ftp://u:${SECRET}@host`];

describe("secrets never reach an error message", () => {
  it("memoryStoreFromEnv: DATABASE_URL with a password in any spelling", async () => {
    const leaks: string[] = [];
    for (const url of DATABASE_URLS) {
      // Either refused here (not a postgres URL) or at the first operation (unreachable host).
      const e = await thrown(async () => {
        const store = memoryStoreFromEnv({ env: { DATABASE_URL: url }, index, postgres: { maxRetries: 0, connectionRetryMs: 0 } });
        try {
          await store.get(["a"], "k");
        } finally {
          await (store as { stop?: () => Promise<void> }).stop?.();
        }
      });
      const held = e instanceof Error && !errorText(e).includes(SECRET);
      if (!counts.count("DATABASE_URL password in an error", held, `${url}: ${errorText(e).slice(0, 200)}`)) leaks.push(url);
    }
    expect(leaks).toEqual([]);
  }, 60_000);

  it("memoryStoreFromEnv: a LANGGRAPH_MEMORY_URL with credentials is refused, without echoing them", async () => {
    for (const url of REMOTE_URLS) {
      const e = await thrown(() => memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: url } }));
      const held = e instanceof MemoryError && !errorText(e).includes(SECRET);
      counts.count("LANGGRAPH_MEMORY_URL credentials refused", held, `${url}: ${errorText(e).slice(0, 200)}`);
      expect(e).toBeInstanceOf(MemoryError);
      expect(errorText(e)).not.toContain(SECRET);
    }
  });

  it("RemoteStore: a url with credentials is refused at construction, without echoing them", async () => {
    for (const url of REMOTE_URLS) {
      const e = await thrown(() => new RemoteStore({ url }));
      const held = e instanceof MemoryError && !errorText(e).includes(SECRET);
      counts.count("RemoteStore url credentials refused", held, `${url}: ${errorText(e).slice(0, 200)}`);
      expect(e).toBeInstanceOf(MemoryError);
      expect(errorText(e)).not.toContain(SECRET);
    }
  });

  it("PostgresMemoryStore: an unreachable database with a password in the URL", async () => {
    for (const url of [`postgres://u:${SECRET}@127.0.0.1:1/x`, `postgres://u:${SECRET}@127.0.0.1:1/x?sslmode=disable`]) {
      const store = new PostgresMemoryStore({ connectionString: url, index, maxRetries: 0, connectionRetryMs: 0 });
      const e = await thrown(() => store.get(["a"], "k"));
      await store.stop().catch(() => {});
      const held = e instanceof MemoryError && !errorText(e).includes(SECRET);
      counts.count("PostgresMemoryStore connection error", held, errorText(e).slice(0, 200));
      expect(e).toBeInstanceOf(MemoryError);
      expect(errorText(e)).not.toContain(SECRET);
    }
  }, 30_000);

  it("redactUrl keeps host and path, never user, password or query", () => {
    const cases: [string, string][] = [
      [`postgres://u:${SECRET}/word@127.0.0.1:1/x`, "postgres://***@127.0.0.1:1/x"],
      [`postgres://u:${SECRET}@127.0.0.1:1/x?password=${SECRET}`, "postgres://***@127.0.0.1:1/x?***"],
      ["http://127.0.0.1:8787", "http://127.0.0.1:8787"],
      [`http://u:${SECRET}@h/p#${SECRET}`, "http://***@h/p"],
      [`not a url ${SECRET}`, "(not a URL; not shown)"],
    ];
    for (const [url, shown] of cases) {
      counts.count("redactUrl", redactUrl(url) === shown, `${url} -> ${redactUrl(url)}`);
      expect(redactUrl(url)).toBe(shown);
    }
  });
});

describe("a request that never left the process does not say it may have been applied", () => {
  // Ports the Fetch standard blocks: fetch refuses them before opening a connection.
  for (const port of [1, 9, 25, 6000]) {
    it(`port ${port} (fetch refuses it): mayHaveApplied false, 'nothing was sent'`, async () => {
      const store = new RemoteStore({ url: `http://127.0.0.1:${port}` });
      const e = (await thrown(() => store.put(["a"], "k", { text: "x" }))) as RemoteStoreError;
      const held = e instanceof RemoteStoreError && e.mayHaveApplied === false && /nothing was sent/.test(e.message) && !/may have been applied/.test(e.message);
      counts.count("refused request classified as not sent", held, e?.message);
      expect(e).toBeInstanceOf(RemoteStoreError);
      expect(e.mayHaveApplied).toBe(false);
      expect(e.message).toMatch(/nothing was sent/);
    });
  }

  it("a server that read the request and closed: still mayHaveApplied true (it may have reached the server)", async () => {
    const server = http.createServer((req, res) => req.resume().on("end", () => res.socket?.destroy()));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const store = new RemoteStore({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const e = (await thrown(() => store.put(["a"], "k", { text: "x" }))) as RemoteStoreError;
      counts.count("reached request classified as may have applied", e instanceof RemoteStoreError && e.mayHaveApplied, e?.message);
      expect(e.mayHaveApplied).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
