import pg from "pg";
import { afterAll, describe, inject, it } from "vitest";
import { graphSuiteOverPostgres } from "./graph-suite.js";
import { databaseUrl, freshSchema } from "./real-server.js";

/**
 * callModel, the memory tools, withMemory, episodes and the extractor
 * (graph-suite.ts) over PostgresMemoryStore on the real PostgreSQL server
 * with pgvector, through a pool of 4 connections.
 */
if (inject("pgvector")) {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: 4 });
  afterAll(() => pool.end());
  await graphSuiteOverPostgres({ pool: async () => pool, freshSchema });
} else {
  describe.skip(`graph, episodes and extractor on the real server — SKIPPED: ${inject("pgvectorMissing")}`, () => it("needs pgvector", () => {}));
}
