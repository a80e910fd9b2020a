import { MemoryError } from "../../errors.js";

type PgModule = typeof import("pg");

/** Loads the optional `pg` peer dependency, with an install hint when it is missing. */
export async function loadPg(): Promise<PgModule> {
  try {
    const mod = (await import("pg")) as PgModule & { default?: PgModule };
    return mod.default ?? mod;
  } catch (err) {
    throw new MemoryError(`The 'pg' package is required to use PostgresMemoryStore. Install it with: npm install pg (${(err as Error).message})`);
  }
}
