/**
 * Lenient parsing of what chat models return: code fences, prose around the
 * JSON, `<think>` reasoning blocks, and items given as `{ fact: ... }` objects
 * are all accepted. Functions return `undefined` when nothing usable is found,
 * so that the caller can log a warning and store nothing.
 */

/** Removes `<think>…</think>` (and `<thinking>`) blocks and any reasoning before a stray closing tag. */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, "");
  const stray = out.search(/<\/(think|thinking|reasoning)>/i);
  if (stray >= 0) out = out.slice(out.indexOf(">", stray) + 1);
  // An opening tag never closed: the model ran out of tokens while reasoning.
  out = out.replace(/<(think|thinking|reasoning)>[\s\S]*$/i, "");
  return out.trim();
}

/** Finds the first balanced JSON array or object starting at or after `from`. */
function balancedSlice(text: string, open: "[" | "{", from = 0): string | undefined {
  const close = open === "[" ? "]" : "}";
  for (let start = text.indexOf(open, from); start >= 0; start = text.indexOf(open, start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === "[" || c === "{") depth++;
      else if (c === "]" || c === "}") {
        depth--;
        if (depth === 0) {
          if (c !== close) break;
          const candidate = text.slice(start, i + 1);
          try {
            JSON.parse(candidate);
            return candidate;
          } catch {
            break;
          }
        }
      }
    }
  }
  return undefined;
}

/** Parses the first JSON value of the wanted shape found in a model reply. */
export function parseJsonFromReply(reply: string, shape: "array" | "object" | "any" = "any"): unknown {
  const text = stripReasoning(reply);
  const candidates: string[] = [];
  for (const m of text.matchAll(/```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)```/g)) candidates.push(m[1].trim());
  candidates.push(text);
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate);
      if (matches(value, shape)) return value;
    } catch {
      // fall through to the bracket scan
    }
    const opens: ("[" | "{")[] = shape === "array" ? ["[", "{"] : shape === "object" ? ["{"] : ["[", "{"];
    const found = opens
      .map((open) => ({ open, at: candidate.indexOf(open) }))
      .filter((o) => o.at >= 0)
      .sort((a, b) => a.at - b.at);
    for (const { open } of found) {
      const slice = balancedSlice(candidate, open);
      if (slice !== undefined) {
        const value = JSON.parse(slice);
        if (matches(value, shape)) return value;
      }
    }
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
export function parseFacts(reply: string): string[] | undefined {
  const list = asList(parseJsonFromReply(reply, "array"));
  if (!list) return undefined;
  return list.map(itemText).filter((t): t is string => t !== undefined);
}

/** Passes the Luhn checksum, as payment card numbers do. */
function luhn(digits: string): boolean {
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

/**
 * A last line of defence after the prompt: true for text that looks like it
 * carries a secret (a card number, a password, a PIN, an API key).
 */
export function looksSecret(text: string): boolean {
  for (const m of text.matchAll(/\d[\d -]{11,22}\d/g)) {
    const digits = m[0].replace(/\D/g, "");
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits)) return true;
  }
  if (/\b(password|passcode|passphrase|pin( code)?|cvv|cvc|api[ _-]?key|secret key|access token)\b\s*(is|was|:|=)/i.test(text)) return true;
  if (/\b(sk|pk|ghp|xox[abp])[-_][A-Za-z0-9_-]{16,}/.test(text)) return true;
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
