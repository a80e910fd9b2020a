/**
 * Compare-and-set of learned instructions through the memory server: two
 * RemoteStore clients (two processes' worth of in-process locks) on one
 * real server over HTTP on 127.0.0.1, HNSWStore behind it (FakeEmbeddings,
 * a TEST DOUBLE embedder).
 */
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../src/errors.js";
import { RemoteStore } from "../../src/store/remote/remote-store.js";
import { expectCompareAndSet } from "../helpers/procedure-race.js";
import { API_KEY, startTestServer, type TestServer } from "../server/support.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("compare-and-set on the memory server", () => {
  it("the second writer of a version gets ProcedureConflictError and writes nothing", async () => {
    server = await startTestServer();
    await expectCompareAndSet(new RemoteStore({ url: server.url, apiKey: API_KEY }), new RemoteStore({ url: server.url, apiKey: API_KEY }));
  });

  it("a server whose store cannot check conditions refuses a conditional put instead of ignoring it", async () => {
    server = await startTestServer({ server: { store: new InMemoryStore() as never } });
    const remote = new RemoteStore({ url: server.url, apiKey: API_KEY });
    const err = await remote.batch([{ namespace: ["a"], key: "k", value: { version: 1 }, ifValue: { field: "version", equals: null } } as never]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(/conditional puts/);
  });
});
