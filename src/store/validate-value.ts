import { InvalidValueError } from "../errors.js";

/**
 * Checks that a value is a plain JSON object that survives a round trip to
 * disk unchanged: strings, finite numbers, booleans, null, arrays and plain
 * objects only. Dates, Maps, class instances, functions, BigInt, NaN and
 * cycles are rejected with the path of the offending part.
 */
export function validateValue(value: unknown, where: string): asserts value is Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw new InvalidValueError(`${where}: value must be a plain JSON object, got ${kind(value)}`);
  }
  check(value, "value", new Set(), where);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return `an instance of ${(v as object).constructor?.name ?? "an unknown class"}`;
  return typeof v;
}

function check(v: unknown, path: string, seen: Set<unknown>, where: string): void {
  switch (typeof v) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(v)) throw new InvalidValueError(`${where}: ${path} is ${v}, which JSON cannot store`);
      return;
    case "undefined":
      return;
    case "object": {
      if (v === null) return;
      if (seen.has(v)) throw new InvalidValueError(`${where}: ${path} is a circular reference`);
      seen.add(v);
      if (Array.isArray(v)) v.forEach((el, i) => check(el, `${path}[${i}]`, seen, where));
      else if (isPlainObject(v)) for (const [k, el] of Object.entries(v)) check(el, `${path}.${k}`, seen, where);
      else throw new InvalidValueError(`${where}: ${path} is ${kind(v)}; store plain JSON (e.g. dates as ISO strings)`);
      seen.delete(v);
      return;
    }
    default:
      throw new InvalidValueError(`${where}: ${path} is a ${typeof v}, which JSON cannot store`);
  }
}
