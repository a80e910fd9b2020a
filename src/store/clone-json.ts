/**
 * A deep copy of a plain JSON value (what `validateValue` admits: objects,
 * arrays, strings, finite numbers, booleans, null). The same result as
 * `structuredClone` for such values, about ten times faster for the small
 * objects memories are (0.4 against 4.4 µs on the bench machine); a search
 * copies every value it returns, so this is on its hot path.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = cloneJson((value as Record<string, unknown>)[key]);
    // An own "__proto__" key (JSON.parse makes one) stays a key, not the prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out as T;
}
