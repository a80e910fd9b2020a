import { InvalidArgumentError, RedactionError } from "../errors.js";

/**
 * A redactor: takes a text the package is about to store or send to an
 * embedder and returns the text to use instead. May be async (a call to a
 * PII service). If it throws, the operation fails with `RedactionError` and
 * nothing is written; the text is never used in clear as a fallback.
 */
export type Redactor = (text: string) => string | Promise<string>;

/** The built-in detectors {@link createRedactor} can switch on. */
export type DetectorName = "email" | "phone" | "card" | "iban" | "secret";

/** Options for {@link createRedactor}. */
export interface RedactorOptions {
  /**
   * Built-in detectors to apply, in this order.
   * @default ["secret", "email", "card", "iban", "phone"]
   */
  detectors?: DetectorName[];
  /**
   * More patterns of your own, each replaced by `[<NAME>]`, e.g.
   * `{ EMPLOYEE_ID: /\bEMP-\d{6}\b/g }`. Must be global regular expressions.
   * @default {}
   */
  patterns?: Record<string, RegExp>;
}

const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;
// A run of 13–19 digits, optionally grouped by single spaces or dashes.
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b/g;
// International or national numbers: +CC or a leading 0/(…), 7–15 digits in all.
const PHONE = /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){2,4}\b/g;
const SECRET =
  /\b(?:(?:sk|pk)[-_][A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})\b/g;

/** Luhn checksum over the digits of `s`. */
export function luhnValid(s: string): boolean {
  const digits = s.replace(/\D/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 mod-97 check of an IBAN (spaces ignored). */
export function ibanValid(s: string): boolean {
  const iban = s.replace(/\s+/g, "").toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const part = code >= 65 ? String(code - 55) : ch;
    for (const digit of part) rest = (rest * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

const DETECTORS: Record<DetectorName, (text: string) => string> = {
  email: (t) => t.replace(EMAIL, "[EMAIL]"),
  card: (t) => t.replace(CARD, (m) => (luhnValid(m) ? "[CARD]" : m)),
  iban: (t) => t.replace(IBAN, (m) => (ibanValid(m) ? "[IBAN]" : m)),
  phone: (t) =>
    t.replace(PHONE, (m) => {
      const digits = m.replace(/\D/g, "").length;
      return digits >= 7 && digits <= 15 ? "[PHONE]" : m;
    }),
  secret: (t) => t.replace(SECRET, "[SECRET]"),
};

/** Every built-in detector, in the order they run by default. */
export const DEFAULT_DETECTORS: readonly DetectorName[] = ["secret", "email", "card", "iban", "phone"];

/**
 * A redactor made of the built-in detectors (e-mail addresses, phone
 * numbers, payment card numbers that pass the Luhn check, IBANs that pass
 * mod-97, API-key-like secrets), each replaced by a typed placeholder such
 * as `[EMAIL]` or `[CARD]`.
 *
 * @example
 * ```ts
 * const redact = createRedactor({ detectors: ["email", "card"] });
 * redact("mail me at a@b.io"); // "mail me at [EMAIL]"
 * ```
 */
export function createRedactor(options: RedactorOptions = {}): (text: string) => string {
  const names = options.detectors ?? [...DEFAULT_DETECTORS];
  for (const name of names) {
    if (!(name in DETECTORS)) {
      throw new InvalidArgumentError(`unknown detector '${String(name)}' (known: ${Object.keys(DETECTORS).join(", ")})`);
    }
  }
  const custom = Object.entries(options.patterns ?? {});
  for (const [name, re] of custom) {
    if (!(re instanceof RegExp) || !re.global) throw new InvalidArgumentError(`pattern '${name}' must be a global RegExp (/…/g)`);
  }
  return (text: string) => {
    let out = text;
    for (const [name, re] of custom) out = out.replace(re, `[${name}]`);
    for (const name of names) out = DETECTORS[name](out);
    return out;
  };
}

/** Runs a redactor, turning a throw or a non-string result into `RedactionError`. */
export async function applyRedactor(redactor: Redactor, text: string): Promise<string> {
  let out: unknown;
  try {
    out = await redactor(text);
  } catch (err) {
    throw new RedactionError(`the redactor threw: ${(err as Error)?.message ?? String(err)}; nothing was written`, { cause: err });
  }
  if (typeof out !== "string") throw new RedactionError(`the redactor returned ${typeof out}, not a string; nothing was written`);
  return out;
}

/** A copy of a JSON value with every string (keys excepted) passed through the redactor. */
export async function redactValue<T>(value: T, redactor: Redactor): Promise<T> {
  if (typeof value === "string") return (await applyRedactor(redactor, value)) as T;
  if (Array.isArray(value)) return (await Promise.all(value.map((v) => redactValue(v, redactor)))) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await redactValue(v, redactor);
    return out as T;
  }
  return value;
}
