import { InvalidArgumentError } from "../errors.js";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"]);

/** Reads a dotted path (`"a.b.c"`) from a value; `undefined` when absent. */
export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith("$"));

/**
 * Checks a filter before use, so that a typo (`$gte` written `$ge`) is an
 * error rather than a filter that silently matches nothing.
 */
export function validateFilter(filter: unknown): void {
  if (filter === undefined || filter === null) return;
  if (typeof filter !== "object" || Array.isArray(filter)) {
    throw new InvalidArgumentError(`filter must be an object, got ${JSON.stringify(filter)}`);
  }
  for (const [path, condition] of Object.entries(filter)) {
    if (!isOperatorObject(condition)) continue;
    for (const [op, operand] of Object.entries(condition)) {
      if (!OPERATORS.has(op)) throw new InvalidArgumentError(`filter on '${path}' uses unknown operator '${op}'`);
      if ((op === "$in" || op === "$nin") && !Array.isArray(operand)) {
        throw new InvalidArgumentError(`filter on '${path}': ${op} needs an array, got ${JSON.stringify(operand)}`);
      }
    }
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(actual: unknown, operand: unknown): number | undefined {
  if (typeof actual === "number" && typeof operand === "number") return actual - operand;
  if (typeof actual === "string" && typeof operand === "string") return actual < operand ? -1 : actual > operand ? 1 : 0;
  return undefined;
}

function matchesOperator(actual: unknown, op: string, operand: unknown): boolean {
  switch (op) {
    case "$eq":
      return deepEqual(actual, operand);
    case "$ne":
      return !deepEqual(actual, operand);
    case "$gt": {
      const c = compare(actual, operand);
      return c !== undefined && c > 0;
    }
    case "$gte": {
      const c = compare(actual, operand);
      return c !== undefined && c >= 0;
    }
    case "$lt": {
      const c = compare(actual, operand);
      return c !== undefined && c < 0;
    }
    case "$lte": {
      const c = compare(actual, operand);
      return c !== undefined && c <= 0;
    }
    case "$in":
      return (operand as unknown[]).some((o) => deepEqual(actual, o));
    case "$nin":
      return !(operand as unknown[]).some((o) => deepEqual(actual, o));
    case "$exists":
      return operand ? actual !== undefined : actual === undefined;
    default:
      return false;
  }
}

/**
 * True when `value` satisfies every condition of `filter`. Keys are dotted
 * paths; a plain value means `$eq`. Comparisons (`$gt`…) apply to two numbers
 * or two strings and are false otherwise.
 */
export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  for (const [path, condition] of Object.entries(filter)) {
    const actual = readPath(value, path);
    if (isOperatorObject(condition)) {
      for (const [op, operand] of Object.entries(condition)) if (!matchesOperator(actual, op, operand)) return false;
    } else if (!deepEqual(actual, condition)) {
      return false;
    }
  }
  return true;
}
