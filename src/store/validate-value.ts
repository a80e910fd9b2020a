import { InvalidValueError } from "../errors.js";
import { textProblem } from "./text-rules.js";

/**
 * How deeply a stored value (or a filter operand) may nest objects and
 * arrays. Deeper values are refused with a named error instead of
 * overflowing the stack while they are checked, cloned or written.
 */
export const MAX_VALUE_DEPTH = 100;

/**
 * Checks that a value is a plain JSON object that survives a round trip to
 * disk unchanged: strings (without NUL or lone surrogates, see
 * `textProblem`), finite numbers, booleans, null, arrays and plain objects
 * only. Dates, Maps, class instances, functions, BigInt, NaN, cycles,
 * Proxy objects and nesting deeper than {@link MAX_VALUE_DEPTH} levels are
 * rejected with the path of the offending part.
 *
 * @throws {InvalidValueError} naming the offending part.
 */
export function validateValue(value: unknown, where: string): asserts value is Record<string, unknown> {
  const problem = isPlainObject(value) ? findNonJson(value, "value") : `value must be a plain JSON object, got ${kind(value)}`;
  if (problem) throw new InvalidValueError(`${where}: ${problem}`);
}

/**
 * Describes the first part of `v` that is not plain JSON (see
 * {@link validateValue}), or returns `undefined` when all of it is. Never
 * throws: a Proxy or a getter that throws is reported as a problem.
 */
export function findNonJson(v: unknown, path: string): string | undefined {
  try {
    return walk(v, path, new Set(), 0);
  } catch (err) {
    return `${path} could not be read (${(err as Error)?.message ?? String(err)})`;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function kind(v: unknown): string {
  if (v === null) return "null";
  if (isProxy(v)) return "a Proxy";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return `an instance of ${(v as object).constructor?.name ?? "an unknown class"}`;
  return typeof v;
}

type NodeUtil = { types: { isProxy(v: unknown): boolean } };
const nodeUtil = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:util") as
  | NodeUtil
  | undefined;

/**
 * True for a Proxy object. A Proxy can pass every shape check (its traps
 * answer like a plain object) and then fail `structuredClone` with a
 * `DataCloneError`. Detected with `util.types.isProxy` on Node (≥ 20.16).
 */
function isProxy(v: unknown): boolean {
  return nodeUtil?.types.isProxy(v) ?? false;
}

function walk(v: unknown, path: string, seen: Set<unknown>, depth: number): string | undefined {
  switch (typeof v) {
    case "string": {
      const problem = textProblem(v as string);
      return problem ? `${path} ${problem}, which not every store can keep` : undefined;
    }
    case "boolean":
    case "undefined":
      return undefined;
    case "number":
      return Number.isFinite(v) ? undefined : `${path} is ${v}, which JSON cannot store`;
    case "object": {
      if (v === null) return undefined;
      if (depth >= MAX_VALUE_DEPTH) return `${path} is nested more than ${MAX_VALUE_DEPTH} levels deep (the limit is MAX_VALUE_DEPTH)`;
      if (isProxy(v)) return `${path} is a Proxy; store plain JSON (copy it first, e.g. with JSON.parse(JSON.stringify(v)))`;
      if (seen.has(v)) return `${path} is a circular reference`;
      seen.add(v);
      let problem: string | undefined;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length && !problem; i++) problem = walk(v[i], `${path}[${i}]`, seen, depth + 1);
      } else if (isPlainObject(v)) {
        for (const [k, el] of Object.entries(v)) {
          const keyProblem = textProblem(k);
          if ((problem = keyProblem ? `${path} has a key ${JSON.stringify(k)} that ${keyProblem}` : walk(el, `${path}.${k}`, seen, depth + 1))) break;
        }
      } else {
        problem = `${path} is ${kind(v)}; store plain JSON (e.g. dates as ISO strings)`;
      }
      seen.delete(v);
      return problem;
    }
    default:
      return `${path} is a ${typeof v}, which JSON cannot store`;
  }
}
