import pg from "pg";

/** One vector search statement the store ran, with the plan PostgreSQL chose for it. */
export interface CapturedPlan {
  sql: string;
  /** Its parameters, as the store sent them (a vector is a Buffer in pgvector's binary form). */
  values?: unknown[];
  /** The statement's name when the store ran it as a named prepared statement. */
  name?: string;
  plan: string;
}

/**
 * A `pg` Pool whose clients EXPLAIN every vector search statement (`<=>`)
 * just before running it, in the same session and transaction (so under
 * the same `SET LOCAL hnsw.*` settings the store made): the plans the store
 * really gets. For tests and bench:postgres; pass it as the store's `pool`.
 */
export function explainingPool(connectionString: string, max = 4): { pool: pg.Pool; plans: CapturedPlan[] } {
  const pool = new pg.Pool({ connectionString, max });
  const plans: CapturedPlan[] = [];
  const wrapped = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  type Callback = (err: Error | undefined, client?: pg.PoolClient, release?: () => void) => void;
  // pg's own pool.query() calls connect with a callback: both forms are served.
  (pool as unknown as { connect: (cb?: Callback) => Promise<pg.PoolClient> | void }).connect = (cb?: Callback) => {
    const connected = wrappedConnect();
    if (!cb) return connected;
    connected.then((client) => cb(undefined, client, () => client.release()), (err: Error) => cb(err));
  };
  const wrappedConnect = async () => {
    const client = await connect();
    if (!wrapped.has(client)) {
      wrapped.add(client);
      const query = client.query.bind(client) as (text: string, values?: unknown[], cb?: unknown) => Promise<pg.QueryResult>;
      (client as unknown as { query: (first: unknown, values?: unknown[], cb?: unknown) => Promise<pg.QueryResult> }).query = async (first: unknown, values?: unknown[], cb?: unknown) => {
        // pg's pool.query() passes a callback: those (never the store's) go through untouched.
        if (cb !== undefined || typeof values === "function") return query(first as string, values, cb);
        // The store's named prepared statements come as a query config ({ name, text, values }).
        const config = typeof first === "string" ? undefined : (first as { name?: string; text: string; values?: unknown[] });
        const text = config ? config.text : (first as string);
        const params = config ? config.values : values;
        if (typeof text === "string" && /^\s*(SELECT|WITH)\b/i.test(text) && text.includes("<=>")) {
          const r = await query(`EXPLAIN ${text}`, params);
          // Vector literals shortened: a 512-d one is 5 KB of digits.
          plans.push({ sql: text, values: params, name: config?.name, plan: r.rows.map((row) => String(row["QUERY PLAN"]).replace(/'\[[^\]]*\]'::vector/g, "'[…]'::vector")).join("\n") });
        }
        return config ? (query as unknown as (c: unknown) => Promise<pg.QueryResult>)(config) : query(text, values);
      };
    }
    return client;
  };
  return { pool, plans };
}
