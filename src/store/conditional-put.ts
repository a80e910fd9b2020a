import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, StoreConflictError } from "../errors.js";
import { readPath } from "./filter.js";

/**
 * A put's precondition (compare-and-set): the batch applies only if the item
 * now stored at the put's namespace and key has `field` equal to `equals`;
 * `equals: null` means "no live item, or one without that field". Otherwise
 * the store refuses the whole batch with {@link StoreConflictError} and
 * applies nothing of it. Checked atomically with the batch's writes: under
 * the store's write lock (HNSWStore), under a transaction-scoped advisory
 * lock on the key (PostgresMemoryStore), by the server's store (RemoteStore).
 */
export interface PutCondition {
  /** A dotted path in the stored value, e.g. `"version"`. */
  field: string;
  /** The value it must hold (a number or string), or null for "absent". */
  equals: number | string | null;
}

/** The property a store sets to `true` when it honours `ifValue` on puts. */
const CONDITIONAL_PUTS = "conditionalPuts";

/** Whether `store` honours `ifValue` (stores that do not would ignore it: never send it to them). */
export function supportsConditionalPuts(store: BaseStore): boolean {
  return (store as unknown as Record<string, unknown>)[CONDITIONAL_PUTS] === true;
}

/** The put's condition, validated; undefined when it has none. */
export function conditionOf(op: Operation): PutCondition | undefined {
  const c = (op as { ifValue?: unknown }).ifValue;
  if (c === undefined || !("value" in op)) return undefined;
  const o = c as Partial<PutCondition> | null;
  if (!o || typeof o !== "object" || typeof o.field !== "string" || o.field === "" || !(o.equals === null || typeof o.equals === "number" || typeof o.equals === "string")) {
    throw new InvalidArgumentError(`a put's ifValue must be { field: string, equals: number | string | null }, got ${JSON.stringify(c)}`);
  }
  return { field: o.field, equals: o.equals };
}

/** Throws StoreConflictError unless `current` (the live stored value, or undefined) satisfies `cond`. */
export function checkCondition(cond: PutCondition, current: Record<string, unknown> | undefined, where: { namespace: string[]; key: string }): void {
  const actual = current === undefined ? undefined : readPath(current, cond.field);
  const ok = cond.equals === null ? actual === undefined || actual === null : actual === cond.equals;
  if (!ok) {
    const shown = actual === undefined ? "absent" : typeof actual === "number" || typeof actual === "string" ? JSON.stringify(actual) : typeof actual;
    throw new StoreConflictError(
      `conditional put on ${JSON.stringify(where.namespace)}/${JSON.stringify(where.key)} refused: ${cond.field} is ${shown}, not ${cond.equals === null ? "absent" : JSON.stringify(cond.equals)}; nothing in the batch was applied`,
    );
  }
}
