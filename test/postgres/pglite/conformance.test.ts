import { afterAll, beforeAll } from "vitest";
import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { describeStoreContract, type ContractOptions } from "../../conformance/store-contract.js";
import { FakeEmbeddings } from "../../helpers/fake-embeddings.js";
import { startPglite, type PgliteServer } from "./pglite.js";

const DIMS = 32;
let server: PgliteServer;

// PGlite's cold start takes seconds, and minutes on a loaded machine.
beforeAll(async () => {
  server = await startPglite();
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

describeStoreContract({
  name: "PostgresMemoryStore (PGlite + pgvector over the pg driver)",
  capabilities: { extendedFilters: true, extras: true, batchedEmbedding: true, namespaceDetail: true },
  make: async (options: ContractOptions = {}) => {
    const embeddings = new FakeEmbeddings({ dims: DIMS });
    const schema = server.freshSchema();
    const store = new PostgresMemoryStore({
      pool: server.pool,
      schema,
      index: options.index === false ? undefined : { dims: DIMS, embeddings, fields: options.fields },
    });
    return {
      store,
      embeddings,
      cleanup: async () => {
        await store.close();
        await server.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  },
});
