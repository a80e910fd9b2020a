import type { Operation } from "@langchain/langgraph-checkpoint";
import { conditionOf } from "../conditional-put.js";
import { nsPath, rowId, type Queryable, type Tables } from "./sql.js";

/**
 * Row locks in one order every writer shares, so that two batches writing
 * the same items queue instead of deadlocking.
 *
 * A statement that writes several items locks their rows in the order it is
 * given them. Two batches that rewrite the same keys in opposite orders each
 * held a row the other wanted, and waited for the server's deadlock check
 * (`deadlock_timeout`, 1 s by default) before one was rolled back and
 * retried; with many writers on a server with default settings the waits
 * queued past `statement_timeout`. So a batch whose writes are one run of
 * puts upserts them in this order ({@link byItem}), and any other write batch
 * (several runs split by reads or by a repeated key, deletes, conditional
 * puts) first locks every item it writes, in this order, before its first
 * statement ({@link lockItemsInOrder}). Either way a batch's first lock on an
 * item row comes in the one order.
 */

/** The order: namespace, then key (JavaScript string order; any one order serves, as long as every writer uses it). */
export function byItem(a: { namespace: string[]; key: string }, b: { namespace: string[]; key: string }): number {
  const x = nsPath(a.namespace);
  const y = nsPath(b.namespace);
  if (x !== y) return x < y ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * True when a batch writes in a way one ordered upsert does not cover: more
 * than one run of writes (a read, a change between put and delete, or a
 * repeated item starts a new run, as in writeRun), a delete, or a
 * conditional put (it reads and locks its key on its own).
 */
export function needsOrderedLocks(operations: readonly Operation[]): boolean {
  let runs = 0;
  let inRun = false;
  let ids = new Set<string>();
  for (const op of operations) {
    if (!("value" in op)) {
      inRun = false; // a read ends the run (the batch writes what came before it first)
      continue;
    }
    if (op.value === null || conditionOf(op)) return true;
    const id = rowId(nsPath(op.namespace), op.key);
    if (!inRun || ids.has(id)) {
      if (++runs > 1) return true;
      ids = new Set();
      inRun = true;
    }
    ids.add(id);
  }
  return false;
}

/**
 * Locks the stored rows of `items` (`FOR UPDATE`), one by one in
 * {@link byItem} order: a lateral probe per item, in the order of the list,
 * so the server takes the locks in that order. Items not stored yet lock
 * nothing; the write of a new key waits on the unique index instead.
 */
export async function lockItemsInOrder(db: Queryable, t: Tables, items: { namespace: string[]; key: string }[]): Promise<void> {
  const seen = new Set<string>();
  const sorted = [...items].sort(byItem).filter((it) => {
    const id = rowId(nsPath(it.namespace), it.key);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  if (sorted.length === 0) return;
  await db.query(
    `SELECT count(*) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(ns, key, o)
     CROSS JOIN LATERAL (SELECT 1 FROM ${t.items} i WHERE i.ns = u.ns AND i.key = u.key FOR UPDATE) x`,
    [sorted.map((it) => nsPath(it.namespace)), sorted.map((it) => it.key)],
  );
}
