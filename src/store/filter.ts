import { InvalidFilterError } from "../errors.js";
import { findNonJson } from "./validate-value.js";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"]);

/**
 * Reads a dotted path (`"a.b.c"`) from a value; `undefined` when absent.
 * Only own properties count: `"constructor"`, `"toString"` or `"__proto__"`
 * are absent unless the stored value itself has them.
 */
export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A condition written with operators: a non-empty object whose keys all start with `$`. */
const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith("$"));

const show = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/**
 * Checks a filter before anything in its batch is applied, so that a bad
 * filter is an error rather than a filter that silently matches nothing (a
 * typo such as `$ge`), matches everything, or fails half way through a batch.
 * Every store of this package calls it while validating a batch.
 *
 * Rules: the filter is a plain object of dotted paths; a condition is a plain
 * value (meaning `$eq`) or an object of operators only, never operators mixed
 * with plain keys; operators are `$eq $ne $gt $gte $lt $lte $in $nin $exists`;
 * `$in`/`$nin` take an array, `$gt`…`$lte` a number or string, `$exists` a
 * boolean; every operand is plain JSON (no BigInt, cycles, Dates, Proxies,
 * nesting beyond `MAX_VALUE_DEPTH`).
 *
 * @throws {InvalidFilterError} naming the path and the problem.
 */
export function validateFilter(filter: unknown): void {
  if (filter === undefined || filter === null) return;
  if (!isPlainObject(filter)) throw new InvalidFilterError(`filter must be a plain object of field paths, got ${show(filter)}`);
  const problem = findNonJson(filter, "filter");
  if (problem) throw new InvalidFilterError(`${problem}; filter operands must be plain JSON`);
  for (const [path, condition] of Object.entries(filter)) {
    if (path === "" || path.startsWith("$")) {
      throw new InvalidFilterError(`filter key '${path}' is not a field path (top-level operators such as $and/$or are not supported)`);
    }
    if (!isPlainObject(condition)) continue;
    const keys = Object.keys(condition);
    const ops = keys.filter((k) => k.startsWith("$"));
    if (ops.length === 0) continue;
    if (ops.length !== keys.length) {
      throw new InvalidFilterError(
        `filter on '${path}' mixes operators (${ops.join(", ")}) with plain keys (${keys.filter((k) => !k.startsWith("$")).join(", ")}); ` +
          `use either operators or a literal object, e.g. { "${path}": { "$eq": {...} } }`,
      );
    }
    for (const [op, operand] of Object.entries(condition)) {
      if (!OPERATORS.has(op)) throw new InvalidFilterError(`filter on '${path}' uses unknown operator '${op}'`);
      if ((op === "$in" || op === "$nin") && !Array.isArray(operand)) {
        throw new InvalidFilterError(`filter on '${path}': ${op} needs an array, got ${show(operand)}`);
      }
      if ((op === "$gt" || op === "$gte" || op === "$lt" || op === "$lte") && typeof operand !== "number" && typeof operand !== "string") {
        throw new InvalidFilterError(`filter on '${path}': ${op} needs a number or a string, got ${show(operand)}`);
      }
      if (op === "$exists" && typeof operand !== "boolean") {
        throw new InvalidFilterError(`filter on '${path}': $exists needs true or false, got ${show(operand)}`);
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

function matchesOperator(found: unknown, op: string, operand: unknown): boolean {
  // As in MongoDB, a missing field equals null: { x: null } matches items
  // without x, and { x: { $ne: null } } only items that have a non-null x.
  const actual = found === undefined && (operand === null || op === "$in" || op === "$nin") ? null : found;
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
  // Conditions are read from the filter's own keys only (Object.entries).
  for (const [path, condition] of Object.entries(filter)) {
    const actual = readPath(value, path);
    if (isOperatorObject(condition)) {
      for (const [op, operand] of Object.entries(condition)) if (!matchesOperator(actual, op, operand)) return false;
    } else if (!matchesOperator(actual, "$eq", condition)) {
      return false;
    }
  }
  return true;
}
