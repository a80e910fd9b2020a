/**
 * RemoteStore against real loopback HTTP servers that misbehave: killed
 * mid-answer, stalled, slow, answering garbage or the wrong shapes. Every
 * failure must be a RemoteStoreError with its cause, saying truthfully
 * whether a write may have been applied; no bad answer is accepted as data.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { RemoteStoreError } from "../../src/errors.js";
import { RemoteStore } from "../../src/store/remote/remote-store.js";
import { tally } from "./server-counts.js";

const counts = tally("remote-errors.test.ts");
afterAll(() => counts.write());

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** A real HTTP server on 127.0.0.1 that reads each request whole, then lets `handler` misbehave. */
async function misbehaving(handler: Handler): Promise<{ url: string; received: string[]; close: () => Promise<void> }> {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(body);
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Runs `run` with a RemoteStore (`options` added) on a `misbehaving(handler)` server, then closes the server. */
async function againstServer(
  handler: Handler,
  options: Omit<ConstructorParameters<typeof RemoteStore>[0], "url">,
  run: (store: RemoteStore, server: Awaited<ReturnType<typeof misbehaving>>) => Promise<void>,
): Promise<void> {
  const s = await misbehaving(handler);
  try {
    await run(new RemoteStore({ url: s.url, ...options }), s);
  } finally {
    await s.close();
  }
}

const json = (res: http.ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
};

const item = { namespace: ["users", "1"], key: "k", value: { text: "x" }, created_at: "2026-12-01T10:00:00.000Z", updated_at: "2026-12-01T10:00:00.000Z" };

/** Runs `call`, expects a RemoteStoreError (never a raw TypeError/DOMException), and counts the attack. */
async function expectRemoteError(attack: string, call: () => Promise<unknown>, check: (e: RemoteStoreError) => void): Promise<RemoteStoreError> {
  let caught: unknown;
  let accepted: string | undefined;
  try {
    accepted = `accepted: ${JSON.stringify(await call())?.slice(0, 120)}`;
  } catch (e) {
    caught = e;
  }
  const held = caught instanceof RemoteStoreError;
  counts.count(attack, held, held ? undefined : (accepted ?? `${(caught as Error)?.name}: ${(caught as Error)?.message}`));
  expect(caught).toBeInstanceOf(RemoteStoreError);
  check(caught as RemoteStoreError);
  return caught as RemoteStoreError;
}

describe("RemoteStore against misbehaving servers", () => {
  it("a server killed mid-answer: RemoteStoreError with the cause; a 200 cut off means the batch was applied", async () => {
    await againstServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"results":[nu');
      setTimeout(() => res.socket?.destroy(), 20);
    }, {}, async (store, s) => {
      const e = await expectRemoteError("killed mid-answer", () => store.put(["a"], "k", { text: "x" }), () => {});
      expect(e.message).toMatch(/broke off its answer/);
      expect(e.message).toMatch(/answered 200, so the batch was applied/);
      expect(e.mayHaveApplied).toBe(true);
      expect(e.cause).toBeInstanceOf(Error);
      expect(s.received).toHaveLength(1);
    });
  });

  it("a server that closes the connection after reading the request: the write may have been applied", async () => {
    await againstServer((_req, res) => res.socket?.destroy(), {}, async (store) => {
      const e = await expectRemoteError("closed before answering", () => store.put(["a"], "k", { text: "x" }), () => {});
      expect(e.message).toMatch(/closed the connection before answering/);
      expect(e.message).toMatch(/may have been applied/);
      expect(e.mayHaveApplied).toBe(true);
      expect(e.status).toBe(0);
      const read = await expectRemoteError("closed before answering", () => store.get(["a"], "k"), () => {});
      expect(read.mayHaveApplied).toBe(false);
      expect(read.message).not.toMatch(/may have been applied/);
    });
  });

  it("a stalled answer body: a RemoteStoreError 'timed out', not a raw DOMException", async () => {
    await againstServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"results":[');
    }, { timeoutMs: 300 }, async (store) => {
      const e = await expectRemoteError("stalled body", () => store.search(["a"]), () => {});
      expect(e.message).toMatch(/timed out after 300 ms while sending its answer/);
      expect((e.cause as Error).name).toBe("TimeoutError");
    });
  });

  it("a slow server that applied the write: 'timed out; the writes may have been applied', never 'could not be reached'", async () => {
    const applied: string[] = [];
    await againstServer((_req, res, body) => {
      applied.push(body); // the write is applied …
      setTimeout(() => json(res, { results: [null] }), 1500); // … and answered too late
    }, { timeoutMs: 300 }, async (store) => {
      const e = await expectRemoteError("slow server, write applied", () => store.put(["a"], "k", { text: "x" }), () => {});
      expect(applied).toHaveLength(1);
      expect(e.message).toMatch(/timed out after 300 ms with no answer; the writes of this batch may have been applied/);
      expect(e.message).not.toMatch(/could not be reached/);
      expect(e.mayHaveApplied).toBe(true);
      const read = await expectRemoteError("slow server, read", () => store.get(["a"], "k"), () => {});
      expect(read.message).toMatch(/timed out/);
      expect(read.mayHaveApplied).toBe(false);
    });
  });

  it("an unreachable server: 'could not be reached', nothing applied", async () => {
    const s = await misbehaving(() => {});
    const url = s.url;
    await s.close();
    const store = new RemoteStore({ url });
    const e = await expectRemoteError("unreachable", () => store.put(["a"], "k", { text: "x" }), () => {});
    expect(e.message).toMatch(/could not be reached.*nothing was sent/);
    expect(e.mayHaveApplied).toBe(false);
    expect(e.status).toBe(0);
  });

  const badAnswers: { name: string; body: unknown; run: (s: RemoteStore) => Promise<unknown>; message: RegExp }[] = [
    { name: "garbage instead of JSON", body: "<html>oops</html>", run: (s) => s.get(["a"], "k"), message: /not JSON/ },
    { name: "truncated JSON", body: '{"results":[{"namespace"', run: (s) => s.get(["a"], "k"), message: /not JSON/ },
    { name: "empty body", body: "", run: (s) => s.get(["a"], "k"), message: /not a batch answer/ },
    { name: "results not an array", body: { results: "nope" }, run: (s) => s.get(["a"], "k"), message: /not a batch answer/ },
    { name: "a JSON array", body: [null], run: (s) => s.get(["a"], "k"), message: /not a batch answer/ },
    { name: "too few results", body: { results: [] }, run: (s) => s.get(["a"], "k"), message: /0 results for 1 operations/ },
    { name: "too many results", body: { results: [null, null] }, run: (s) => s.get(["a"], "k"), message: /2 results for 1 operations/ },
    { name: "item without key", body: { results: [{ ...item, key: undefined }] }, run: (s) => s.get(["a"], "k"), message: /operation 0 \(get\): key/ },
    { name: "item with invalid created_at", body: { results: [{ ...item, created_at: "not-a-date" }] }, run: (s) => s.get(["a"], "k"), message: /created_at not a valid ISO-8601 timestamp/ },
    { name: "item with impossible updated_at", body: { results: [{ ...item, updated_at: "2026-13-45T99:99:99Z" }] }, run: (s) => s.get(["a"], "k"), message: /updated_at/ },
    { name: "item with numeric date", body: { results: [{ ...item, created_at: 12 }] }, run: (s) => s.get(["a"], "k"), message: /created_at/ },
    { name: "item value an array", body: { results: [{ ...item, value: [1] }] }, run: (s) => s.get(["a"], "k"), message: /value not a JSON object/ },
    { name: "item value null", body: { results: [{ ...item, value: null }] }, run: (s) => s.get(["a"], "k"), message: /value/ },
    { name: "namespace of numbers", body: { results: [{ ...item, namespace: [1, 2] }] }, run: (s) => s.get(["a"], "k"), message: /namespace/ },
    { name: "search answered an object", body: { results: [item] }, run: (s) => s.search(["a"]), message: /operation 0 \(search\)/ },
    { name: "search item with a string score", body: { results: [[{ ...item, score: "0.9" }]] }, run: (s) => s.search(["a"]), message: /score/ },
    { name: "search item with invalid date", body: { results: [[{ ...item, updated_at: "yesterday" }]] }, run: (s) => s.search(["a"]), message: /updated_at/ },
    { name: "list of strings, not of namespaces", body: { results: [["a", "b"]] }, run: (s) => s.listNamespaces({}), message: /list_namespaces/ },
    { name: "put answered an item", body: { results: [item] }, run: (s) => s.put(["a"], "k", { text: "x" }), message: /operation 0 \(put\).*may have been applied/ },
  ];

  it(`${badAnswers.length} malformed 200 answers: each a named RemoteStoreError, none accepted as data`, async () => {
    let current: unknown;
    await againstServer((_req, res) => json(res, current as string), {}, async (store) => {
      for (const bad of badAnswers) {
        current = bad.body;
        const e = await expectRemoteError(`malformed answer`, () => bad.run(store), () => {});
        expect(e.message, bad.name).toMatch(bad.message);
        expect(e.status, bad.name).toBe(200);
      }
    });
  });

  it("an error status with a non-JSON body is still a RemoteStoreError naming the status", async () => {
    await againstServer((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    }, {}, async (store) => {
      const e = await expectRemoteError("error status, HTML body", () => store.get(["a"], "k"), () => {});
      expect(e.status).toBe(502);
      expect(e.message).toMatch(/502.*Bad gateway/);
    });
  });

  it("no breach", () => {
    expect(counts.breaches).toEqual([]);
  });
});
