/**
 * A memory server in its own process, for the multi-process test. Usage:
 *   tsx test/server/server-process.ts <dir> <port>
 * Prints "listening on <url>"; SIGTERM closes it gracefully (exit 0).
 * Embeddings are the FakeEmbeddings TEST DOUBLE.
 */
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { startMemoryServer } from "../../src/server/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { API_KEY } from "./keys.js";

const [dir, port] = process.argv.slice(2);
const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
await store.open();
const server = await startMemoryServer({ store, apiKey: API_KEY, port: Number(port), logger: false });
process.stdout.write(`listening on ${server.url}\n`);
