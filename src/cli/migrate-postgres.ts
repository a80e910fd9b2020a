import { CliError } from "../errors.js";
import { migrateStore, type MigrationReport } from "../migrate/migrate.js";
import { embedderForDirectory, openStore } from "./open-store.js";
import { Progress } from "./progress.js";

/**
 * `migrate --to postgres://…`: copies a directory into a PostgresMemoryStore
 * with the library's `migrateStore` (vectors copied when the embedder is the
 * same, verified by count and content checksum, idempotent on re-run).
 */
export async function migrateToPostgres(dir: string, url: string, embeddings: string | undefined): Promise<MigrationReport> {
  const { embedder, note } = await embedderForDirectory(dir, embeddings);
  if (note) process.stderr.write(`note: ${note}\n`);
  if (!embedder) throw new CliError("migrate --to postgres:// needs the directory's embedder (pass --embeddings): the target embeds what it cannot copy");
  const { PostgresMemoryStore } = await import("../store/postgres/index.js");
  const source = await openStore(dir, { embedder });
  const target = new PostgresMemoryStore({ connectionString: url, poolConfig: { max: 1 }, index: { dims: embedder.dims, embeddings: embedder.embeddings }, embedderIdentity: embedder.identity });
  const progress = new Progress("migrate", await source.count());
  try {
    await target.setup();
    const report = await migrateStore(source, target, { onProgress: (p) => progress.update(p.done) });
    progress.stop();
    return report;
  } catch (err) {
    progress.abandon();
    throw err;
  } finally {
    await source.close();
    await target.close();
  }
}
