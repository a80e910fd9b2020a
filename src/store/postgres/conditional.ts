import type { PutOperation } from "@langchain/langgraph-checkpoint";
import { nsPath, Params, type Queryable, type Tables } from "./sql.js";

/**
 * Takes a transaction-scoped advisory lock on one item's key, so that two
 * conditional puts on it (from any process) run one after the other: the
 * second reads, under READ COMMITTED, what the first committed. A lock on
 * the key, not the row, also serialises two puts of an item not stored yet.
 */
export async function lockItemKey(db: Queryable, t: Tables, op: Pick<PutOperation, "namespace" | "key">): Promise<void> {
  const p = new Params();
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended(${p.add(JSON.stringify([t.items, nsPath(op.namespace), op.key]))}, 0))`, p.values);
}
