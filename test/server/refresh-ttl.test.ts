import { HNSWStore } from "../../src/index.js";
import { createMemoryServer } from "../../src/server/index.js";
import { RemoteStore } from "../../src/store/remote/remote-store.js";
import { describeRefreshTtl } from "../conformance/refresh-ttl-contract.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { API_KEY, bearerAuth } from "./support.js";

/**
 * RemoteStore sends a put's `ttl` and a read's `refreshTtl` over the wire; the
 * server's HNSWStore (real, in a temp dir; FakeEmbeddings TEST DOUBLE) honours them.
 */
describeRefreshTtl("RemoteStore (memory server over HNSWStore)", async ({ refreshOnRead, clock }) => {
  const t = tempDir("remote-ttl-");
  const backing = new HNSWStore({
    path: t.dir,
    index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] },
    ttl: { defaultTtl: 10, refreshOnRead, sweepIntervalMinutes: 0 },
    clock,
  });
  const app = createMemoryServer({ store: backing, apiKey: API_KEY, authenticate: bearerAuth, logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const store = new RemoteStore({ url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, apiKey: API_KEY });
  return {
    store,
    cleanup: async () => {
      await app.close();
      await backing.close();
      t.cleanup();
    },
  };
});
