import pg from "pg";

/**
 * A `pg` Pool whose clients record every statement the store sends: its
 * text in `sent` and its parameters at the same index in `values`. Clear
 * both (`length = 0`) to watch one step.
 */
export function countingPool(config: pg.PoolConfig): { pool: pg.Pool; sent: string[]; values: unknown[][] } {
  const pool = new pg.Pool(config);
  const sent: string[] = [];
  const values: unknown[][] = [];
  const seen = new WeakSet<pg.PoolClient>();
  pool.on("connect", (client) => {
    if (seen.has(client)) return;
    seen.add(client);
    const query = client.query.bind(client) as (...a: unknown[]) => Promise<pg.QueryResult>;
    (client as unknown as { query: (...a: unknown[]) => Promise<pg.QueryResult> }).query = (first: unknown, ...rest: unknown[]) => {
      sent.push(typeof first === "string" ? first : (first as { text: string }).text);
      values.push(typeof first === "string" ? ((rest[0] as unknown[]) ?? []) : ((first as { values?: unknown[] }).values ?? []));
      return query(first, ...rest);
    };
  });
  return { pool, sent, values };
}
