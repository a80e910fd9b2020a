import { createRedactor } from "../privacy/redact.js";

/**
 * Lenient parsing of what chat models return: code fences, prose around the
 * JSON, `<think>` reasoning blocks, and items given as `{ fact: ... }` objects
 * are all accepted. Functions return `undefined` when nothing usable is found,
 * so that the caller can log a warning and store nothing.
 */

/**
 * Replies longer than this many characters are not parsed (a reply of facts
 * is a few thousand characters; a huge one is a runaway or an attack).
 */
export const MAX_REPLY_CHARS = 100_000;

const REASONING_TAGS = ["think", "thinking", "reasoning"] as const;

/**
 * Removes `<think>…</think>` (and `<thinking>`, `<reasoning>`) blocks, any
 * reasoning before a stray closing tag, and an opening tag never closed (the
 * model ran out of tokens while reasoning) with everything after it. Linear
 * in the length of the text.
 */
export function stripReasoning(text: string): string {
  const lower = text.toLowerCase();
  // Next position of each opening tag at or after the cursor (recomputed only when passed).
  const next = new Map<string, number>(REASONING_TAGS.map((t) => [t, lower.indexOf(`<${t}>`)]));
  let out = "";
  let i = 0;
  while (i < text.length) {
    let tag: string | undefined;
    let at = -1;
    for (const t of REASONING_TAGS) {
      let p = next.get(t)!;
      if (p >= 0 && p < i) next.set(t, (p = lower.indexOf(`<${t}>`, i)));
      if (p >= 0 && (at < 0 || p < at)) [tag, at] = [t, p];
    }
    if (tag === undefined) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, at);
    const close = lower.indexOf(`</${tag}>`, at + tag.length + 2);
    if (close < 0) break; // never closed: drop the rest
    i = close + tag.length + 3;
  }
  const stray = out.search(/<\/(think|thinking|reasoning)>/i);
  if (stray >= 0) out = out.slice(out.indexOf(">", stray) + 1);
  return out.trim();
}

/** The contents of the first `limit` ``` fenced blocks, found in one pass. */
function fencedBlocks(text: string, limit: number): string[] {
  const out: string[] = [];
  for (let open = text.indexOf("```"); open >= 0 && out.length < limit; ) {
    const close = text.indexOf("```", open + 3);
    if (close < 0) break;
    // Drop the language tag (```json) on the opening line.
    const body = text.slice(open + 3, close).replace(/^[a-zA-Z0-9_-]*[ \t]*\r?\n?/, "");
    out.push(body.trim());
    open = text.indexOf("```", close + 3);
  }
  return out;
}

/**
 * Every balanced `[…]` / `{…}` span outside strings, from `from` on, in order
 * of its start, found in one pass with a stack; and the first span that never
 * closed (or -1). String state is tracked only inside a span, so quotes in
 * prose don't hide what follows. A mismatched closer breaks every span still
 * open.
 */
function balancedSpans(text: string, from: number): { spans: [number, number][]; firstBroken: number } {
  const ends = new Int32Array(text.length - from).fill(-1);
  const starts: number[] = [];
  const stack: number[] = [];
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* backslash */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34 && stack.length > 0) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      stack.push(i);
      starts.push(i);
    } else if ((c === 93 /* ] */ || c === 125) /* } */ && stack.length > 0) {
      const open = stack.pop()!;
      if ((text.charCodeAt(open) === 91) === (c === 93)) ends[open - from] = i;
      else stack.length = 0;
    }
  }
  const spans: [number, number][] = [];
  let firstBroken = -1;
  for (const s of starts) {
    if (ends[s - from] >= 0) spans.push([s, ends[s - from]]);
    else if (firstBroken < 0) firstBroken = s;
  }
  return { spans, firstBroken };
}

/** True when `text` could be one JSON object or array (cheap check before JSON.parse). */
function looksLikeJson(text: string): boolean {
  const a = text[0];
  const z = text[text.length - 1];
  return (a === "[" && z === "]") || (a === "{" && z === "}");
}

/** Fenced blocks and bracket spans tried per reply; past these the reply is not JSON worth finding. */
const MAX_CANDIDATES = 100;
/** Scans restarted after a bracket that never closed (each restart is one linear pass). */
const MAX_RESTARTS = 4;

/**
 * Finds the first balanced JSON value starting with one of `opens` that
 * parses and has the wanted shape. Linear: brackets are matched in one pass
 * (restarted at most {@link MAX_RESTARTS} times, past a bracket in prose that
 * never closed), and JSON.parse is given at most a few times the text's
 * length, in at most {@link MAX_CANDIDATES} tries.
 */
function scanForJson(text: string, opens: string, shape: "array" | "object" | "any"): unknown {
  let budget = 4 * text.length + 1000;
  let tries = 0;
  const tried = new Set<number>();
  for (let from = 0, restarts = 0; from >= 0 && from < text.length && restarts <= MAX_RESTARTS; restarts++) {
    const { spans, firstBroken } = balancedSpans(text, from);
    for (const [start, end] of spans) {
      if (!opens.includes(text[start]) || tried.has(start)) continue;
      tried.add(start);
      const length = end - start + 1;
      if (length > budget || ++tries > MAX_CANDIDATES) return undefined;
      budget -= length;
      try {
        const value = JSON.parse(text.slice(start, end + 1));
        if (matches(value, shape)) return value;
      } catch {
        // not JSON: try the next span
      }
    }
    from = firstBroken < 0 ? -1 : firstBroken + 1;
  }
  return undefined;
}

/**
 * Parses the first JSON value of the wanted shape found in a model reply:
 * the reply itself, a fenced block, or a balanced span in prose. Replies
 * longer than `maxChars` yield `undefined`. Linear in the reply's length.
 */
export function parseJsonFromReply(reply: string, shape: "array" | "object" | "any" = "any", maxChars = MAX_REPLY_CHARS): unknown {
  if (typeof reply !== "string" || reply.length > maxChars) return undefined;
  const text = stripReasoning(reply);
  for (const candidate of [...fencedBlocks(text, MAX_CANDIDATES), text]) {
    if (looksLikeJson(candidate)) {
      try {
        const value = JSON.parse(candidate);
        if (matches(value, shape)) return value;
      } catch {
        // fall through to the bracket scan
      }
    }
    const value = scanForJson(candidate, shape === "object" ? "{" : "[{", shape);
    if (value !== undefined) return value;
  }
  return undefined;
}

function matches(value: unknown, shape: "array" | "object" | "any"): boolean {
  if (value === null || typeof value !== "object") return false;
  if (shape === "array") return Array.isArray(value) || hasListField(value);
  if (shape === "object") return !Array.isArray(value);
  return true;
}

const LIST_FIELDS = ["facts", "memories", "items", "decisions", "actions", "operations"];
function hasListField(value: object): boolean {
  return LIST_FIELDS.some((f) => Array.isArray((value as Record<string, unknown>)[f]));
}

/** Unwraps `{ facts: [...] }`-style objects to the list inside. */
export function asList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value && typeof value === "object") {
    for (const f of LIST_FIELDS) {
      const inner = (value as Record<string, unknown>)[f];
      if (Array.isArray(inner)) return inner;
    }
  }
  return undefined;
}

const TEXT_FIELDS = ["fact", "text", "memory", "content", "value"];

/** A list item as text: a string, or the first string field of `{ fact | text | memory | content }`. */
export function itemText(item: unknown): string | undefined {
  if (typeof item === "string") return item.trim() || undefined;
  if (item && typeof item === "object") {
    for (const f of TEXT_FIELDS) {
      const v = (item as Record<string, unknown>)[f];
      if (typeof v === "string" && v.trim()) return v.trim();
    }
  }
  return undefined;
}

/**
 * Parses a list of facts from a model reply.
 * @returns the facts (possibly none), or `undefined` when the reply holds no JSON list.
 */
export function parseFacts(reply: string, maxChars = MAX_REPLY_CHARS): string[] | undefined {
  const list = asList(parseJsonFromReply(reply, "array", maxChars));
  if (!list) return undefined;
  return list.map(itemText).filter((t): t is string => t !== undefined);
}

const SECRET_DETECTORS = createRedactor({ detectors: ["secret", "card"] });

/**
 * A last line of defence after the prompt: true for text that looks like it
 * carries a secret (a card number, a password, a PIN, an API key).
 */
export function looksSecret(text: string): boolean {
  // The privacy layer's detectors: a Luhn-valid card number, an API-key-like secret.
  if (SECRET_DETECTORS(text) !== text) return true;
  if (/\b(password|passcode|passphrase|pin( code)?|cvv|cvc|api[ _-]?key|secret key|access token)\b\s*(is|was|:|=)/i.test(text)) return true;
  return false;
}

/** Trims, drops empty, overlong and secret-looking facts, and removes duplicates (by normalised text). */
export function cleanFacts(facts: readonly string[], normalise: (s: string) => string, maxLength = 500): { facts: string[]; dropped: string[] } {
  const seen = new Set<string>();
  const out: string[] = [];
  const dropped: string[] = [];
  for (const raw of facts) {
    const text = raw.replace(/\s+/g, " ").trim();
    if (!text) continue;
    if (text.length > maxLength || looksSecret(text)) {
      dropped.push(text);
      continue;
    }
    const norm = normalise(text);
    if (seen.has(norm)) continue;
    seen.add(norm);
    out.push(text);
  }
  return { facts: out, dropped };
}
