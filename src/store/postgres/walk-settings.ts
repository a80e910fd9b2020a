import type { Queryable } from "./sql.js";

/**
 * How an index walk gets its planner settings (`hnsw.ef_search`,
 * `hnsw.iterative_scan`, …):
 *
 * - `"session"`: set on the connection once, at session level, and again
 *   only when they change, so that a read is one round trip (the statement).
 *   For connections only the store uses: its own pool on a real server.
 * - `"local"`: `BEGIN; SET LOCAL …`, the statement, `COMMIT` (three round
 *   trips), so that nothing outlives the read: a caller's pool, PGlite.
 *
 * Inside a batch's transaction, a connection that already has the settings
 * (session) runs the statement alone; otherwise they are `SET LOCAL` first.
 */
export type WalkSettingsMode = "session" | "local";

/** The settings an index walk needs. */
export interface WalkSettings {
  efSearch: number;
  /**
   * pgvector 0.8's iterative scans (a filtered walk goes on until the page
   * is full): `"relaxed_order"` on, `"off"` off, undefined where the server's
   * pgvector has none (the setting is not sent).
   */
  iterativeScan?: "relaxed_order" | "off";
}

/** The settings each connection has at session level (compared field by field: no text is built per search). */
const applied = new WeakMap<object, { efSearch: number; iterativeScan: WalkSettings["iterativeScan"] }>();

/** `hnsw.ef_search` as sent: pgvector's range, whole. */
const efSearchSent = (efSearch: number) => Math.min(1000, Math.max(1, Math.round(efSearch)));

function statements(s: WalkSettings, mode: WalkSettingsMode): string[] {
  const out = [`hnsw.ef_search = ${efSearchSent(s.efSearch)}`];
  // Set either way where pgvector has it: a session keeps what an earlier walk set.
  if (s.iterativeScan) out.push(`hnsw.iterative_scan = ${s.iterativeScan}`);
  // A search is a short OLTP statement: a parallel worker (the planner offers one for the pending
  // branch while its statistics still count rows that were moved) costs more to start than the scan.
  out.push("max_parallel_workers_per_gather = 0");
  // As before for connections the store does not own: the selection is large (it was counted),
  // so walk the index, never sort the scope. enable_sort = off prices the pending branch's
  // (unavoidable, small) sort at 1e10, which would pass jit_above_cost: jit off too.
  if (mode === "local") out.push("enable_sort = off");
  out.push("jit = off");
  return out;
}

/**
 * Runs `run` (one statement on `db`) under the walk's settings. `inTransaction`:
 * the batch has a transaction open on `db` (its writes), so a setting made
 * there is `SET LOCAL` and never recorded (a rollback would undo it).
 */
export async function withWalkSettings<T>(db: Queryable, settings: WalkSettings, mode: WalkSettingsMode, inTransaction: boolean, run: () => Promise<T>): Promise<T> {
  const efSearch = efSearchSent(settings.efSearch);
  const has = mode === "session" ? applied.get(db) : undefined;
  if (has && has.efSearch === efSearch && has.iterativeScan === settings.iterativeScan) return run();
  const list = statements(settings, mode);
  const local = list.map((s) => `SET LOCAL ${s}`);
  if (inTransaction) {
    await db.query(local.join("; "));
    return run();
  }
  if (mode === "session") {
    // Cleared first: a failed SET leaves the session's settings unknown.
    applied.delete(db);
    await db.query(list.map((s) => `SET ${s}`).join("; "));
    applied.set(db, { efSearch, iterativeScan: settings.iterativeScan });
    return run();
  }
  await db.query(["BEGIN", ...local].join("; "));
  try {
    const out = await run();
    await db.query("COMMIT");
    return out;
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
