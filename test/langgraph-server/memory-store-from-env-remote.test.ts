/**
 * memoryStoreFromEnv with LANGGRAPH_MEMORY_URL: a RemoteStore against the
 * package's real memory server on 127.0.0.1 (heavy: it starts a server).
 * Embeddings: FakeEmbeddings, a deterministic TEST DOUBLE.
 */
import { afterEach, expect, it } from "vitest";
import { HNSWStore, memoryStoreFromEnv, RemoteStore, UnauthorizedError } from "../../src/index.js";
import { startMemoryServer } from "../../src/server/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const index = { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

  it("LANGGRAPH_MEMORY_URL + LANGGRAPH_MEMORY_API_KEY: a RemoteStore that sends the key", async () => {
    const server = await startMemoryServer({ store: new HNSWStore({ index }), apiKey: "right-key", port: 0, handleSignals: false, logger: false });
    cleanups.push(() => server.close());
    const store = memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: server.url, LANGGRAPH_MEMORY_API_KEY: "right-key" } });
    expect(store).toBeInstanceOf(RemoteStore);
    await store.put(["users", "1"], "a", { text: "User plays the cello." });
    expect((await store.get(["users", "1"], "a"))?.value).toEqual({ text: "User plays the cello." });

    const wrongKey = memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: server.url, LANGGRAPH_MEMORY_API_KEY: "wrong" } });
    await expect(wrongKey.get(["users", "1"], "a")).rejects.toBeInstanceOf(UnauthorizedError);
    const noKey = memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: server.url } });
    await expect(noKey.get(["users", "1"], "a")).rejects.toBeInstanceOf(UnauthorizedError);
  });

