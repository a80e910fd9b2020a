import { InvalidOptionError, UnknownOptionError } from "./errors.js";

/**
 * Checks for the options objects of public constructors and factories. Each
 * accepts `undefined` (the option's default) and throws
 * {@link InvalidOptionError} naming the option for anything it cannot use:
 * `null` where null has no meaning, `NaN`, `Infinity`, negative numbers,
 * strings where numbers belong. Nothing is coerced.
 */

/** The options argument itself: an object, or undefined when `optional`. */
export function checkOptionsObject(value: unknown, name: string, optional = true): void {
  if (value === undefined && optional) return;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError(name, value, optional ? "an options object or undefined" : "an options object");
  }
}

export interface NumberRule {
  /** Smallest accepted value. @default 0 */
  min?: number;
  /** Whether `min` itself is accepted. @default true */
  minInclusive?: boolean;
  /** Largest accepted value. @default Number.MAX_SAFE_INTEGER */
  max?: number;
  /** Only whole numbers. @default false */
  integer?: boolean;
}

/** A finite number in range (never NaN or Infinity). */
export function checkNumber(value: unknown, name: string, rule: NumberRule = {}): void {
  if (value === undefined) return;
  const { min = 0, minInclusive = true, max = Number.MAX_SAFE_INTEGER, integer = false } = rule;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    (minInclusive ? value >= min : value > min) &&
    value <= max &&
    (!integer || Number.isInteger(value));
  if (!ok) {
    const kind = integer ? "an integer" : "a finite number";
    const lower = minInclusive ? `>= ${min}` : `> ${min}`;
    const upper = max === Number.MAX_SAFE_INTEGER ? "" : ` and <= ${max}`;
    throw new InvalidOptionError(name, value, `${kind} ${lower}${upper}`);
  }
}

/** A positive integer (>= 1). */
export function checkPositiveInt(value: unknown, name: string, max?: number): void {
  checkNumber(value, name, { min: 1, integer: true, max });
}

export function checkBoolean(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== "boolean") throw new InvalidOptionError(name, value, "a boolean");
}

/** A string (non-empty unless `allowEmpty`). */
export function checkString(value: unknown, name: string, allowEmpty = false): void {
  if (value === undefined) return;
  if (typeof value !== "string" || (!allowEmpty && value.length === 0)) {
    throw new InvalidOptionError(name, value, allowEmpty ? "a string" : "a non-empty string");
  }
}

export function checkFunction(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== "function") throw new InvalidOptionError(name, value, "a function");
}

export function checkOneOf<T extends string>(value: unknown, name: string, allowed: readonly T[]): void {
  if (value !== undefined && !allowed.includes(value as T)) {
    throw new InvalidOptionError(name, value, `one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
  }
}

/** An object with the listed methods (for loggers and clients). */
export function checkHasMethods(value: unknown, name: string, methods: readonly string[]): void {
  if (value === undefined) return;
  const ok = value !== null && (typeof value === "object" || typeof value === "function") && methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function");
  if (!ok) throw new InvalidOptionError(name, value, `an object with ${methods.map((m) => `${m}()`).join(", ")}`);
}

/** A plain object (not null, not an array) when given. */
export function checkObject(value: unknown, name: string): void {
  if (value === undefined) return;
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InvalidOptionError(name, value, "an object");
}

/**
 * The keys of an options interface, as a list the compiler holds to exactly
 * the interface's keys (a key missing here, or one the interface lacks, is
 * a type error), for {@link checkKnownKeys}.
 */
export function optionKeys<T extends object>(keys: Record<keyof T & string, true>): readonly string[] {
  return Object.keys(keys);
}

/** Edit distance of two short strings (for suggestions). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

/**
 * The known key `key` is most likely a misspelling of: the same letters in
 * another case, else the closest within one edit (keys of up to four
 * letters) or two; of two equally close, one that starts like it
 * (`modes` → `mode`, not `model`).
 */
export function nearestOption(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same) return same;
  let best: string | undefined;
  let bestScore = (lower.length <= 4 ? 1 : 2) + 0.5;
  for (const k of known) {
    const kl = k.toLowerCase();
    const score = distance(lower, kl) - (kl.startsWith(lower) || lower.startsWith(kl) ? 0.25 : 0);
    if (score < bestScore) {
      best = k;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Refuses keys of `value` (an options object, when it is one) that are not
 * in `known`: {@link UnknownOptionError} naming `prefix + key` and the near
 * miss. Keys whose value is `undefined` count too (a typo is a typo).
 */
export function checkKnownKeys(value: unknown, known: readonly string[], prefix = ""): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = nearestOption(key, known);
    throw new UnknownOptionError(`${prefix}${key}`, (value as Record<string, unknown>)[key], near === undefined ? undefined : `${prefix}${near}`, known.map((k) => `${prefix}${k}`));
  }
}

/** {@link checkOptionsObject} and {@link checkKnownKeys} in one: an options object (or undefined) with only known keys. */
export function checkOptions(value: unknown, name: string, known: readonly string[], options: { optional?: boolean; prefix?: string } = {}): void {
  checkOptionsObject(value, name, options.optional ?? true);
  checkKnownKeys(value, known, options.prefix);
}

/** A copy of `value` with only the `known` keys (to hand a superset of options to a function that takes fewer). */
export function pickKnown<T extends object>(value: T, known: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => known.includes(k))) as Partial<T>;
}
