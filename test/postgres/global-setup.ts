import pg from "pg";
import type { TestProject } from "vitest/node";
import { pgBinDir, pgvectorInstalled, startPgCluster } from "../helpers/pg-cluster.js";

/**
 * Starts a throwaway PostgreSQL server for `npm run test:postgres` (see
 * test/helpers/pg-cluster.ts) and creates the pgvector extension in it. With
 * DATABASE_URL set, that server is used instead and nothing is started.
 *
 * pgvector is required in CI (the `CI` variable is set): a server without it
 * fails the suite at once, with the reason. Elsewhere the tests that need
 * vectors on the real server are skipped, and the reason is printed.
 */
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** Whether the server has pgvector (`CREATE EXTENSION vector` succeeded). */
    pgvector: boolean;
    /** Why pgvector tests are skipped, when they are. */
    pgvectorMissing: string;
  }
}

async function createVector(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    return undefined;
  } catch (err) {
    return `CREATE EXTENSION vector failed on ${url.replace(/\/\/[^@]*@/, "//")}: ${(err as Error).message}`;
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  let url = process.env.DATABASE_URL;
  let stop: (() => void) | undefined;
  if (!url) {
    const bin = pgBinDir();
    if (!bin) throw new Error("test:postgres: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql), and DATABASE_URL is not set");
    if (!pgvectorInstalled(bin) && process.env.CI) {
      throw new Error(`test:postgres: pgvector is not installed into ${bin} (run ../shared/tools/install-pgvector.sh); CI must run the PostgreSQL suite with vectors`);
    }
    const cluster = await startPgCluster({ bin });
    url = cluster.url;
    stop = cluster.stop;
  }
  const missing = await createVector(url);
  if (missing && process.env.CI) {
    stop?.();
    throw new Error(`test:postgres: ${missing}. CI must run the PostgreSQL suite with pgvector (../shared/tools/install-pgvector.sh)`);
  }
  if (missing) console.warn(`\n[test:postgres] SKIPPING the tests that need pgvector on the real server: ${missing}. Install it with ../shared/tools/install-pgvector.sh.\n`);
  project.provide("databaseUrl", url);
  project.provide("pgvector", !missing);
  project.provide("pgvectorMissing", missing ?? "");
  return stop;
}
