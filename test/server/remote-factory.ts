import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../../src/index.js";
import { RemoteStore } from "../../src/store/remote/remote-store.js";
import { createMemoryServer } from "../../src/server/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { API_KEY, asUser, bearerAuth } from "./support.js";

/**
 * A fresh memory server (in this process, on 127.0.0.1, a real HNSWStore in
 * a temp dir, FakeEmbeddings TEST DOUBLE) and a RemoteStore talking to it,
 * as a trusted service (API key) or as an end user (whose namespaces the
 * server confines under ["users", id]). `backend` serves another store
 * instead of the HNSWStore (test/postgres serves a PostgresMemoryStore).
 */
export async function makeRemote(options: {
  dims: number;
  fields?: string[];
  index?: boolean;
  as?: "service" | { user: string };
  backend?: (index: { dims: number; embeddings: FakeEmbeddings; fields: string[] } | undefined) => Promise<{ store: BaseStore; cleanup: () => Promise<void> }>;
}) {
  const embeddings = new FakeEmbeddings({ dims: options.dims });
  const index = options.index === false ? undefined : { dims: options.dims, embeddings, fields: options.fields ?? ["text"] };
  const { dir, cleanup: removeDir } = tempDir("remote-store-");
  const backend = options.backend ? await options.backend(index) : undefined;
  const server = backend?.store ?? new HNSWStore({ path: dir, index });
  const cleanup = async () => {
    await backend?.cleanup();
    removeDir();
  };
  const app = createMemoryServer({ store: server, apiKey: API_KEY, authenticate: bearerAuth, logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const as = options.as ?? "service";
  const store = as === "service" ? new RemoteStore({ url, apiKey: API_KEY }) : new RemoteStore({ url, headers: asUser(as.user) });
  return {
    store,
    server,
    embeddings,
    url,
    cleanup: async () => {
      await app.close();
      await cleanup();
    },
  };
}
