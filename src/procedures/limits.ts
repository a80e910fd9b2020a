import { InvalidArgumentError, ProcedureChangeRejectedError } from "../errors.js";
import { looksSecret } from "../extract/parse.js";
import { normalizeForChecks } from "../prompt/prompt-text.js";
import { lineDiff, type LineDiff } from "./diff.js";

/** Bounds on one change of learned instructions. */
export interface ProcedureLimits {
  /**
   * Longest instructions, in characters.
   * @default 4000
   */
  maxChars?: number;
  /**
   * Most lines one change may add plus remove (a rewrite of everything
   * counts every line twice). Larger changes are refused.
   * @default 20
   */
  maxChangedLines?: number;
  /**
   * Most lines one change may remove (an edited line counts as removed and
   * added). A rewrite that silently drops earlier rules is refused (the
   * optimizer asks once to keep them, then keeps the feedback for review).
   * @default Infinity
   */
  maxRemovedLines?: number;
}

/** The defaults of {@link ProcedureLimits}. */
export const DEFAULT_PROCEDURE_LIMITS: Required<ProcedureLimits> = { maxChars: 4000, maxChangedLines: 20, maxRemovedLines: Infinity };

/**
 * Text that has no place in an agent's instructions, whatever the feedback
 * said: attempts to override the rules around it ("ignore your
 * instructions"), to unlock hidden behaviour, or to leak the prompt.
 */
export const UNSAFE_INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /(?<!\b(never|not|don't|do not|no)\s+)\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(instructions?|rules?|prompts?|guidelines?|polic(y|ies)|guardrails?)\b/i,
  /(?<!\b(never|not|don't|do not|no)\s+)\b(reveal|print|show|repeat|leak)\b[^.\n]{0,30}\b(system prompt|instructions|secrets?|api keys?|passwords?)\b/i,
  /\b(developer|god|jailbreak|dan) mode\b/i,
  /\bno (restrictions|limits|rules)\b/i,
];

/** Resolves and validates limits; throws InvalidArgumentError naming a bad one. */
export function resolveLimits(limits: ProcedureLimits | undefined): Required<ProcedureLimits> {
  const out = { ...DEFAULT_PROCEDURE_LIMITS };
  for (const k of ["maxChars", "maxChangedLines", "maxRemovedLines"] as const) {
    const v = limits?.[k];
    if (v === undefined) continue;
    const min = k === "maxRemovedLines" ? 0 : 1;
    if (typeof v !== "number" || !(v >= min) || (!Number.isInteger(v) && v !== Infinity)) {
      throw new InvalidArgumentError(`procedure limit ${k} must be an integer ≥ ${min} (or Infinity), got ${JSON.stringify(v)}`);
    }
    out[k] = v;
  }
  return out;
}

// The patterns above for text spelled out letter by letter with single spaces throughout ("i g n o r e a l l …"),
// which reads as one word once joined: the same verbs and objects, without word boundaries.
const SQUASHED_UNSAFE_PATTERNS: readonly RegExp[] = [
  /(ignore|disregard|forget|override|bypass)[a-z]{0,40}(instructions?|rules?|prompts?|guidelines?|polic(y|ies)|guardrails?)/i,
  /(reveal|print|show|repeat|leak)[a-z]{0,30}(systemprompt|instructions|secrets?|apikeys?|passwords?)/i,
  /(developer|god|jailbreak|dan)mode/i,
  /no(restrictions|limits|rules)/i,
];

/**
 * Why text looks unsafe as instructions, or undefined. The patterns read
 * the text normalised as redaction reads it (fullwidth letters, zero-width
 * characters and soft hyphens undone), with look-alike letters (Cyrillic
 * `і`, `о`, …) folded to Latin and spaced-out letters joined
 * (`normalizeForChecks`).
 */
export function unsafeInstructionReason(text: string): string | undefined {
  const checked = normalizeForChecks(text);
  for (const p of UNSAFE_INSTRUCTION_PATTERNS) {
    const m = p.exec(checked);
    if (m) return `it contains ${JSON.stringify(m[0])}, which tries to override or leak instructions`;
  }
  for (const run of checked.match(/[a-z]{12,}/gi) ?? []) {
    const m = SQUASHED_UNSAFE_PATTERNS.map((p) => p.exec(run)).find(Boolean);
    if (m) return `it contains ${JSON.stringify(m[0])} spelled out letter by letter, which tries to override or leak instructions`;
  }
  if (looksSecret(checked)) return "it looks like it contains a secret (a key, password, card or account number)";
  return undefined;
}

/** Why the lines a change adds look unsafe as instructions, or undefined (the text it keeps is not judged again). */
export function unsafeAdditionReason(diff: LineDiff): string | undefined {
  return unsafeInstructionReason(diff.lines.filter((l) => l.op === "+").map((l) => l.text).join("\n"));
}

/**
 * Checks one change against the limits and returns its diff; throws
 * {@link ProcedureChangeRejectedError} (and nothing is written) when the new
 * text is empty or too long, or the change too large.
 */
export function checkChange(before: string, after: string, limits: Required<ProcedureLimits>): LineDiff {
  if (typeof after !== "string" || after.trim() === "") throw new ProcedureChangeRejectedError("the new instructions are empty", "empty");
  if (after.length > limits.maxChars) {
    throw new ProcedureChangeRejectedError(`the new instructions are ${after.length} characters, over maxChars (${limits.maxChars})`, "too_long");
  }
  const diff = lineDiff(before, after);
  const changed = diff.added + diff.removed;
  if (changed > limits.maxChangedLines) {
    throw new ProcedureChangeRejectedError(
      `the change adds ${diff.added} and removes ${diff.removed} lines (${changed}), over maxChangedLines (${limits.maxChangedLines})`,
      "diff_too_large",
    );
  }
  if (diff.removed > limits.maxRemovedLines) {
    throw new ProcedureChangeRejectedError(`the change removes ${diff.removed} lines, over maxRemovedLines (${limits.maxRemovedLines})`, "removes_lines");
  }
  return diff;
}
