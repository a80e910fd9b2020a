/**
 * `ttl: { defaultTtl: null }` on the PostgreSQL store, on a real engine
 * (PGlite with pgvector, over the pg driver): the same contract as HNSWStore's.
 */
import { describe } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { ttlNullContract } from "../helpers/ttl-null-contract.js";
import { pgliteForFile } from "../postgres/pglite/pglite.js";

const pg = pgliteForFile();

describe("PostgresMemoryStore ttl.defaultTtl null", () => {
  ttlNullContract((options) => new PostgresMemoryStore({ pool: pg.server.pool, schema: pg.server.freshSchema(), ...options }));
});
