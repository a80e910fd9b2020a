import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { contractIndex, describeStoreContract, type ContractOptions } from "../../conformance/store-contract.js";
import { pgliteForFile } from "./pglite.js";

const DIMS = 32;
const pg = pgliteForFile();


describeStoreContract({
  name: "PostgresMemoryStore (PGlite + pgvector over the pg driver)",
  capabilities: { extendedFilters: true, extras: true, batchedEmbedding: true, namespaceDetail: true, searchRetrieval: true },
  make: async (options: ContractOptions = {}) => {
    const { embeddings, index } = contractIndex(options, DIMS);
    const schema = pg.server.freshSchema();
    const store = new PostgresMemoryStore({ pool: pg.server.pool, schema, index });
    return {
      store,
      embeddings,
      cleanup: async () => {
        await store.close();
        await pg.server.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  },
});
