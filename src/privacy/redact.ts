import { InvalidArgumentError, InvalidOptionError, RedactionError } from "../errors.js";
import { checkKnownKeys } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { DETECTOR_MATCHERS, type DetectorName } from "./detectors.js";
import { normalizeForMatching, originalRange, replaceSpans, type Span } from "./normalize.js";

/**
 * A redactor: takes a text the package is about to store or send to an
 * embedder and returns the text to use instead. May be async (a call to a
 * PII service). If it throws, the operation fails with `RedactionError` and
 * nothing is written; the text is never used in clear as a fallback.
 */
export type Redactor = (text: string) => string | Promise<string>;

export { luhnValid, ibanValid, type DetectorName } from "./detectors.js";

/** A redactor made by {@link createRedactor}: also tells where its matches are. */
export type TextRedactor = ((text: string) => string) & {
  /** The ranges of `text` (original indices) that the redactor replaces, and their labels. */
  readonly spans: (text: string, only?: readonly DetectorName[]) => Span[];
};

/** Options for {@link createRedactor}. */
export interface RedactorOptions {
  /**
   * Built-in detectors to apply, in this order.
   * @default ["secret", "email", "card", "iban", "nino", "phone"]
   */
  detectors?: DetectorName[];
  /**
   * More patterns of your own, each replaced by `[<NAME>]`, e.g.
   * `{ EMPLOYEE_ID: /\bEMP-\d{6}\b/g }`. Must be global regular expressions.
   * @default {}
   */
  patterns?: Record<string, RegExp>;
}

/** Every built-in detector, in the order they run by default. */
export const DEFAULT_DETECTORS: readonly DetectorName[] = ["secret", "email", "card", "iban", "nino", "phone"];

/**
 * A redactor made of the built-in detectors (e-mail addresses, phone
 * numbers, payment card numbers that pass the Luhn check, IBANs that pass
 * mod-97, UK National Insurance numbers, API keys and tokens (also split
 * over lines or wrapped in base64), private keys and `password=`-style secrets),
 * each replaced by a typed placeholder such as `[EMAIL]` or `[CARD]`.
 * Matching runs on a normalised copy of the text (NFKC, every Unicode digit
 * as 0-9, invisible characters dropped), and only the matched ranges of the
 * original are replaced. See docs/privacy.md for what is and isn't caught.
 *
 * @example
 * ```ts
 * const redact = createRedactor({ detectors: ["email", "card"] });
 * redact("mail me at a@b.io"); // "mail me at [EMAIL]"
 * ```
 */
export function createRedactor(options: RedactorOptions = {}): TextRedactor {
  if (options === null || typeof options !== "object") throw new InvalidOptionError("createRedactor options", options, "an options object or undefined");
  checkKnownKeys(options, OPTION_KEYS.redactor);
  if (options.detectors !== undefined && !Array.isArray(options.detectors)) throw new InvalidOptionError("detectors", options.detectors, "an array of detector names");
  const names = options.detectors ?? [...DEFAULT_DETECTORS];
  for (const name of names) {
    if (typeof name !== "string" || !Object.hasOwn(DETECTOR_MATCHERS, name)) {
      throw new InvalidArgumentError(`unknown detector '${String(name)}' (known: ${Object.keys(DETECTOR_MATCHERS).join(", ")})`);
    }
  }
  if (options.patterns !== undefined && (options.patterns === null || typeof options.patterns !== "object" || Array.isArray(options.patterns))) throw new InvalidOptionError("patterns", options.patterns, "an object of global RegExps");
  const custom = Object.entries(options.patterns ?? {});
  for (const [name, re] of custom) {
    if (!(re instanceof RegExp) || !re.global) throw new InvalidArgumentError(`pattern '${name}' must be a global RegExp (/…/g)`);
  }
  const spans = (text: string, only?: readonly DetectorName[]): Span[] => {
    const n = normalizeForMatching(text);
    let masked = n.text;
    const out: Span[] = [];
    const take = (label: string, ranges: { start: number; end: number }[]) => {
      for (const r of ranges) {
        if (r.end <= r.start) continue;
        out.push({ ...originalRange(n, r.start, r.end), label });
        // Later detectors see the match as a neutral run of the same length (offsets stay put).
        masked = masked.slice(0, r.start) + "#".repeat(r.end - r.start) + masked.slice(r.end);
      }
    };
    if (!only) for (const [label, re] of custom) take(label, [...masked.matchAll(re)].map((m) => ({ start: m.index!, end: m.index! + m[0].length })));
    for (const name of names) {
      if (only && !only.includes(name)) continue;
      const d = DETECTOR_MATCHERS[name];
      take(d.label, d.find(masked));
    }
    return out;
  };
  const redact = (text: string) => replaceSpans(text, spans(text));
  return Object.assign(redact, { spans });
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

// Detectors whose matches are looked for across fields too (phone numbers are not: short numeric strings side by side look like one).
const CROSS_FIELD: readonly DetectorName[] = ["secret", "email", "card", "iban"];

/**
 * A copy of a JSON value with every string and every object key passed
 * through the redactor. Two keys that redact to the same text are kept apart
 * (`[EMAIL]`, `[EMAIL]#2`). With a redactor from `createRedactor`, the string
 * values are then read as one text (joined by spaces) so that a card number,
 * IBAN, e-mail address or secret split across fields is redacted as well.
 */
export async function redactValue<T>(value: T, redactor: Redactor): Promise<T> {
  const leaves: { get: () => string; set: (s: string) => void }[] = [];
  const walk = async (v: unknown, set: (s: string) => void): Promise<unknown> => {
    if (typeof v === "string") {
      const out = await applyRedactor(redactor, v);
      const leaf = { text: out };
      leaves.push({ get: () => leaf.text, set: (s) => set((leaf.text = s)) });
      return out;
    }
    if (Array.isArray(v)) {
      const arr: unknown[] = [];
      for (let i = 0; i < v.length; i++) arr.push(await walk(v[i], (s) => (arr[i] = s)));
      return arr;
    }
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v)) {
        let key = await applyRedactor(redactor, k);
        if (Object.hasOwn(out, key)) {
          let n = 2;
          while (Object.hasOwn(out, `${key}#${n}`)) n++;
          key = `${key}#${n}`;
        }
        const at = key;
        out[at] = await walk(child, (s) => (out[at] = s));
      }
      return out;
    }
    return v;
  };
  const result = (await walk(value, () => {})) as T;
  const spansOf = (redactor as Partial<TextRedactor>).spans;
  if (typeof spansOf === "function" && leaves.length > 1) redactAcrossFields(leaves, spansOf);
  return result;
}

function redactAcrossFields(leaves: { get: () => string; set: (s: string) => void }[], spansOf: TextRedactor["spans"]): void {
  const texts = leaves.map((l) => l.get());
  const starts: number[] = [];
  let joined = "";
  for (const t of texts) {
    starts.push(joined.length);
    joined += t + " ";
  }
  const perLeaf: Span[][] = texts.map(() => []);
  for (const span of spansOf(joined, CROSS_FIELD)) {
    for (let i = 0; i < texts.length; i++) {
      const s = Math.max(span.start, starts[i]!) - starts[i]!;
      const e = Math.min(span.end, starts[i]! + texts[i]!.length) - starts[i]!;
      const crosses = span.start < starts[i]! || span.end > starts[i]! + texts[i]!.length;
      if (e > s && crosses) perLeaf[i]!.push({ start: s, end: e, label: span.label });
    }
  }
  perLeaf.forEach((spans, i) => {
    if (spans.length) leaves[i]!.set(replaceSpans(texts[i]!, spans));
  });
}
