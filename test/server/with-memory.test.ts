/**
 * The whole withMemory suite (test/graph/with-memory.test.ts: preload,
 * background extraction, postload tools, missing config, dotted ids, …)
 * re-run with RemoteStore → memory server → HNSWStore on disk as the store,
 * over real HTTP on 127.0.0.1. Chat and extractor models are the scripted
 * TEST DOUBLE and embeddings the FakeEmbeddings TEST DOUBLE, as in that suite.
 */
import { vi } from "vitest";
vi.mock("../graph/stores.js", async (importOriginal) => (await import("./remote-stores-mock.js")).remoteStores(importOriginal as never));

await import("../graph/with-memory.test.js");
