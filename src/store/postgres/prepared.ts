import { createHash } from "node:crypto";
import type { QueryResult, QueryResultRow } from "pg";
import type { Queryable } from "./sql.js";

/** Most distinct statement texts one store prepares (each connection holds at most this many). */
export const MAX_PREPARED = 200;

/** SQLSTATE invalid_sql_statement_name: the session lost the statement (DISCARD ALL, DEALLOCATE, a pooler). */
const LOST_STATEMENT = "26000";

/**
 * Named prepared statements for the search statements. A search's SQL text
 * depends only on its shape (which plan, the filter's structure), never on
 * its values, so one name per text (a hash of it) lets every connection
 * parse and plan a shape once and then only bind and execute it: about half
 * of one user's search on the bench machine was parse and plan. Only the
 * first {@link MAX_PREPARED} texts get a name, so that filters of many
 * shapes cannot grow each session's prepared statements without bound;
 * later texts run unnamed, as before.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();

  constructor(private enabled: boolean) {}

  /** Every later statement runs unnamed (a server whose connections share one session: PGlite). */
  disable(): void {
    this.enabled = false;
  }

  /** The statement's name, or undefined when it runs unnamed. */
  nameOf(text: string): string | undefined {
    if (!this.enabled) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_PREPARED) {
      name = `lhm_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }

  /**
   * Runs `text` as a named statement when it has a name. If the session lost
   * the statement (`26000`, e.g. a pooler's `DISCARD ALL`) outside a
   * transaction, `pg`'s record of it is dropped and the statement prepared
   * again once.
   */
  async query<R extends QueryResultRow>(db: Queryable, text: string, values: unknown[], inTransaction: boolean): Promise<QueryResult<R>> {
    const name = this.nameOf(text);
    if (name === undefined) return db.query<R>(text, values);
    const run = () => (db as unknown as NamedQueryable).query<R>({ name, text, values });
    try {
      return await run();
    } catch (err) {
      if ((err as { code?: string }).code !== LOST_STATEMENT || inTransaction) throw err;
      const parsed = (db as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;
      if (parsed) delete parsed[name];
      return run();
    }
  }
}

/** `pg`'s query config form (a client or pool accepts it where it accepts text). */
interface NamedQueryable {
  query<R extends QueryResultRow>(config: { name: string; text: string; values: unknown[] }): Promise<QueryResult<R>>;
}
