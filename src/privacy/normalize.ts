/**
 * The text the detectors match against: each code point NFKC-normalised
 * (fullwidth digits and letters, `＠`, ligatures), every Unicode decimal digit
 * mapped to 0-9 (Arabic-Indic, Devanagari, …), every dash to `-`, every space
 * (NBSP, thin space, ideographic space) to ` `, and invisible characters
 * (zero-width spaces and joiners, soft hyphens, bidi controls, variation
 * selectors, tag characters) dropped. `origin` maps each position of the
 * normalised text back to the original, so a match is replaced in the
 * original text and everything around it is left exactly as written.
 */
export interface NormalizedText {
  text: string;
  /** `origin[i]` is the index in the original text where normalised char `i` came from; `origin[text.length]` is the original length. */
  origin: number[];
}

const INVISIBLE = /^[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}]$/u;
const DIGIT = /^\p{Nd}$/u;
const DASH = /^\p{Pd}$/u;
const SPACE = /^\p{Zs}$/u;

/** The value 0-9 of a Unicode decimal digit: its distance from the start of its run of ten. */
function digitValue(ch: string): string {
  const cp = ch.codePointAt(0)!;
  let start = cp;
  while (start > cp - 9 && DIGIT.test(String.fromCodePoint(start - 1))) start--;
  // Runs of digits come in blocks of ten (some blocks touch: count from the run start modulo 10).
  return String((cp - start) % 10);
}

const cache = new Map<string, string>();

function normalizeChar(ch: string): string {
  const hit = cache.get(ch);
  if (hit !== undefined) return hit;
  let out: string;
  if (INVISIBLE.test(ch)) out = "";
  else if (SPACE.test(ch)) out = " ";
  else if (DASH.test(ch) || ch === "\u2212") out = "-";
  else if (DIGIT.test(ch) && !/[0-9]/.test(ch)) out = /^[0-9]$/.test(ch.normalize("NFKC")) ? ch.normalize("NFKC") : digitValue(ch);
  else if (ch.charCodeAt(0) < 0x80) out = ch;
  else out = ch.normalize("NFKC");
  if (cache.size < 4096) cache.set(ch, out);
  return out;
}

export function normalizeForMatching(text: string): NormalizedText {
  let out = "";
  const origin: number[] = [];
  let i = 0;
  for (const ch of text) {
    const n = ch.charCodeAt(0) < 0x80 ? ch : normalizeChar(ch);
    for (let k = 0; k < n.length; k++) origin.push(i);
    out += n;
    i += ch.length;
  }
  origin.push(text.length);
  return { text: out, origin };
}

/** A match in the normalised text, as a range of the original text. */
export interface Span {
  start: number;
  end: number;
  /** The placeholder's name (`EMAIL`, `CARD`, …). */
  label: string;
}

/** Maps a [start, end) range of the normalised text to the original. */
export function originalRange(n: NormalizedText, start: number, end: number): { start: number; end: number } {
  const s = n.origin[start]!;
  // The end is where the char after the last matched one starts (in the original), so dropped invisibles inside are covered.
  const e = end < n.text.length ? n.origin[end]! : n.origin[n.text.length]!;
  return { start: s, end: Math.max(e, s + 1) };
}

/** Replaces `spans` (original ranges; overlapping ones merged) with `[LABEL]`. */
export function replaceSpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  for (const s of sorted) {
    if (s.end <= at) continue;
    if (s.start < at) {
      at = s.end;
      continue;
    }
    out += text.slice(at, s.start) + `[${s.label}]`;
    at = s.end;
  }
  return out + text.slice(at);
}
