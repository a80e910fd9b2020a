/**
 * The createAgent middleware suite (test/agent/memory-middleware.test.ts:
 * preload across threads, tool round trips, missing user id, extraction,
 * nothing in the checkpoint, …) re-run with RemoteStore → memory server →
 * HNSWStore on disk as the store, over real HTTP on 127.0.0.1. Chat and
 * extractor models are the scripted TEST DOUBLE and embeddings the
 * FakeEmbeddings TEST DOUBLE, as in that suite.
 */
import { vi } from "vitest";
import { makeRemote } from "./remote-factory.js";

vi.mock("../graph/stores.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../graph/stores.js")>();
  return {
    ...original,
    storeFactories: () => [
      {
        name: "RemoteStore → memory server → HNSWStore",
        make: async () => {
          const r = await makeRemote({ dims: original.DIMS, as: "service" });
          return { store: r.store, embeddings: r.embeddings, cleanup: r.cleanup };
        },
      },
    ],
  };
});

await import("../agent/memory-middleware.test.js");
