/**
 * The forget matrix (test/helpers/forget-matrix.ts) on PostgresMemoryStore
 * over the real PostgreSQL server: every forget path × every kind of a
 * person's memory, each followed by a scan of every row of every table the
 * store wrote in its schema (items, vectors, pending vectors, keyword data),
 * as text. The CLI paths need a store directory and run on HNSWStore only.
 * FakeEmbeddings is a TEST DOUBLE (bag of words); PostgreSQL, pgvector and
 * the HTTP server are real.
 */
import { vi } from "vitest";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { forgetMatrix } from "../helpers/forget-matrix.js";
import { describeWithVectors, freshSchema, poolForFile } from "./real-server.js";

vi.setConfig({ testTimeout: 120_000 });
const server = poolForFile(4);

describeWithVectors("forget matrix: every forget path × every kind, every row of every PostgreSQL table", () => {
  forgetMatrix({
    name: "PostgresMemoryStore",
    cli: false,
    fresh: async () => {
      const schema = freshSchema();
      return {
        open: async () => new PostgresMemoryStore({ pool: server.pool, schema, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } }),
        close: (s: BaseStore) => (s as PostgresMemoryStore).close(),
        scan: async () => {
          const tables = await server.pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema]);
          let out = "";
          for (const { table_name } of tables.rows) {
            const rows = await server.pool.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${table_name}" t`);
            out += rows.rows.map((r) => r.row).join("\n");
          }
          return out;
        },
        cleanup: async () => {
          await server.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
  });
});
