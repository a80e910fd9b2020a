import { InvalidOptionError } from "./errors.js";

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
