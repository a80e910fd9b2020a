import { contractIndex, describeStoreContract, type ContractOptions } from "../conformance/store-contract.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { describeWithVectors, freshSchema, poolForFile } from "./real-server.js";

/** The whole store contract over PostgresMemoryStore on the real PostgreSQL server with pgvector. */
const DIMS = 32;
const server = poolForFile(4);

describeWithVectors("on a real PostgreSQL server with pgvector", () => {
  describeStoreContract({
    name: "PostgresMemoryStore (real PostgreSQL + pgvector)",
    capabilities: { extendedFilters: true, extras: true, batchedEmbedding: true, namespaceDetail: true, searchRetrieval: true },
    make: async (options: ContractOptions = {}) => {
      const { embeddings, index } = contractIndex(options, DIMS);
      const schema = freshSchema();
      const store = new PostgresMemoryStore({ pool: server.pool, schema, index });
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
});
