import { pgBinDir, startPgCluster } from "../../test/helpers/pg-cluster.js";

/**
 * The PostgreSQL server a bench runs against: DATABASE_URL, or a throwaway
 * cluster (test/helpers/pg-cluster.ts) with the bench settings; `stop` ends
 * the cluster (nothing for DATABASE_URL).
 */
export async function benchServer(bench: string): Promise<{ url: string; stop: () => void }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => {} };
  const bin = pgBinDir();
  if (!bin) throw new Error(`${bench}: no PostgreSQL server under /usr/lib/postgresql and no DATABASE_URL`);
  const cluster = await startPgCluster({ bin, settings: ["shared_buffers=512MB", "maintenance_work_mem=256MB"] });
  return { url: cluster.url, stop: cluster.stop };
}
