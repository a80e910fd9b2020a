import pg from "pg";

export interface LoggedStatement {
  text: string;
  values?: unknown[];
  /** Round-trip time through `pg`. */
  ms: number;
}

/**
 * Logs every statement sent through `pg` (any client or pool of this
 * process) while `on` is true, with its round-trip time. For the bench
 * profiles (bench/postgres-profile.ts, bench/postgres-read-profile.ts):
 * patches `pg.Client.prototype.query` for the rest of the process.
 */
export function statementLog(): { log: LoggedStatement[]; on: boolean } {
  const state = { log: [] as LoggedStatement[], on: false };
  const origQuery = pg.Client.prototype.query as (...a: unknown[]) => Promise<unknown>;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: pg.Client, ...a: unknown[]) {
    const t0 = performance.now();
    const out = origQuery.apply(this, a);
    if (state.on && out && typeof (out as Promise<unknown>).then === "function") {
      const first = a[0] as string | { text: string; values?: unknown[] };
      const text = typeof first === "string" ? first : first.text;
      const values = typeof first === "string" ? (a[1] as unknown[] | undefined) : first.values;
      return (out as Promise<unknown>).then((r) => (state.log.push({ text, values, ms: performance.now() - t0 }), r));
    }
    return out;
  };
  return state;
}
