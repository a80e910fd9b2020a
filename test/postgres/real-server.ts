import pg from "pg";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import type { PostgresMemoryStoreOptions } from "../../src/store/postgres/options.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

/**
 * The real PostgreSQL server of `npm run test:postgres` (started by
 * global-setup.ts, or DATABASE_URL) for test files: its URL, whether it has
 * pgvector, one pool per file, and a fresh schema per store.
 */
export const databaseUrl = (): string => inject("databaseUrl");

/**
 * `describe` for tests that need pgvector on the real server. Where it is
 * missing (never in CI: global-setup fails there) they are skipped, and the
 * reason is printed in the title.
 */
export function describeWithVectors(name: string, body: () => void): void {
  if (inject("pgvector")) describe(name, body);
  else describe.skip(`${name} — SKIPPED: ${inject("pgvectorMissing")}`, body);
}

let counter = 0;
/** A schema name no other store of this run uses. */
export const freshSchema = (): string => `r${process.pid}_${++counter}`;

/**
 * A pool of the real server for the calling test file, and the stores and
 * schemas its tests open (push them): after its tests the stores are closed,
 * the schemas dropped and the pool ended.
 */
export function schemasForFile(): { admin: pg.Pool; schemas: string[]; stores: PostgresMemoryStore[] } {
  const admin = new pg.Pool({ connectionString: databaseUrl(), max: 4 });
  const schemas: string[] = [];
  const stores: PostgresMemoryStore[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });
  return { admin, schemas, stores };
}

/** One pool of the real server for the calling test file (ended after its tests). */
export function poolForFile(max = 4): { readonly pool: pg.Pool } {
  const holder = {} as { pool: pg.Pool };
  beforeAll(() => {
    holder.pool = new pg.Pool({ connectionString: databaseUrl(), max });
  });
  afterAll(async () => {
    await holder.pool?.end();
  });
  return holder;
}

/**
 * A PostgresMemoryStore in a fresh schema of the real server, on `pool`,
 * with the FakeEmbeddings TEST DOUBLE (bag of words) when `dims` is given.
 * `cleanup` closes it and drops its schema.
 */
export function realStore(pool: pg.Pool, options: { dims?: number; fields?: string[]; store?: Partial<PostgresMemoryStoreOptions> } = {}) {
  const schema = freshSchema();
  const embeddings = new FakeEmbeddings({ dims: options.dims ?? 32 });
  const store = new PostgresMemoryStore({
    pool,
    schema,
    index: options.dims ? { dims: options.dims, embeddings, fields: options.fields } : undefined,
    ...options.store,
  });
  return {
    store,
    embeddings,
    schema,
    cleanup: async () => {
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}
