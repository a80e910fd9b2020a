/**
 * The built-in detectors. Each finds [start, end) ranges in text that has
 * already been normalised (see normalize.ts): plain ASCII digits, `-`
 * dashes, ` ` spaces, no invisible characters.
 */

/** The built-in detectors `createRedactor` can switch on. */
export type DetectorName = "email" | "phone" | "card" | "iban" | "nino" | "secret";

export interface Match {
  start: number;
  end: number;
}

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

/** ISO 13616 mod-97 check of an IBAN (spaces, dashes and dots ignored; any case). */
export function ibanValid(s: string): boolean {
  const iban = s.replace(/[\s.-]+/g, "").toUpperCase();
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

function all(re: RegExp, text: string): Match[] {
  return [...text.matchAll(re)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }));
}

// Local part and domain may hold any letters (IDN); the TLD is letters or punycode. "[at]"/"(at)", "%40" and "[dot]" spellings
// count too, and so does a quoted local part ("john doe"@example.com).
const AT = String.raw`(?:\s?@\s?|%40|\s?[\[(]\s?at\s?[\])]\s?)`;
const DOT = String.raw`(?:\.|%2e|\s?[\[(]\s?dot\s?[\])]\s?)`;
const LOCAL = String.raw`(?:"[^"\r\n]{1,64}"|(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+)`;
const EMAIL = new RegExp(String.raw`${LOCAL}${AT}[\p{L}\p{N}-]+(?:${DOT}[\p{L}\p{N}-]+)*${DOT}(?:\p{L}{2,}|xn--[a-z0-9-]+)(?![\p{L}\p{N}-])`, "giu");

// International or national numbers: +CC or a leading 0/(…), 7–15 digits in all. Groups are split by a separator with up
// to three spaces or tabs around it (`555 . 123 . 4567`, `555  123  4567`), or by one line break.
const SEP = String.raw`(?:[ \t]{0,3}[./_-]?[ \t]{0,3}|\r?\n)`;
const PHONE = new RegExp(String.raw`(?<![A-Za-z0-9])(?:\+\d{1,3}${SEP})?(?:\(\d{1,4}\)${SEP})?\d{2,4}(?:${SEP}\d{2,4}){2,4}(?![A-Za-z0-9])`, "g");

// Calendar dates (2024-05-01, 01.05.2024, 2024/05/01) are not phone numbers.
const DATE = /^(?:\d{4}([-./])\d{1,2}\1\d{1,2}|\d{1,2}([-./])\d{1,2}\2\d{4})$/;

/** Finds windows of digit (or alphanumeric) groups, split by separators, that pass `valid`, preferring the longest from each start. */
function groupWindows(text: string, run: RegExp, split: RegExp, minLen: number, maxLen: number, valid: (compact: string) => boolean, startOk: (group: string) => boolean): Match[] {
  const out: Match[] = [];
  for (const m of text.matchAll(run)) {
    const groups: Match[] = [];
    const base = m.index!;
    for (const g of m[0].matchAll(split)) groups.push({ start: base + g.index!, end: base + g.index! + g[0].length });
    let i = 0;
    while (i < groups.length) {
      if (!startOk(text.slice(groups[i]!.start, groups[i]!.end))) {
        i++;
        continue;
      }
      let best = -1;
      let compact = "";
      for (let j = i; j < groups.length; j++) {
        compact += text.slice(groups[j]!.start, groups[j]!.end);
        if (compact.length > maxLen) break;
        if (compact.length >= minLen && valid(compact)) best = j;
      }
      if (best >= 0) {
        out.push({ start: groups[i]!.start, end: groups[best]!.end });
        i = best + 1;
      } else i++;
    }
  }
  return out;
}

// Digit groups split by up to three spaces, tabs, line breaks, dots, slashes, underscores or dashes.
const CARD_RUN = /(?<!\d)\d+(?:[ \t\r\n._/-]{1,3}\d+)*(?!\d)/g;
const IBAN_RUN = /(?<![A-Za-z0-9])[A-Za-z0-9]+(?:[ \t\r\n._/-]{1,3}[A-Za-z0-9]+)*(?![A-Za-z0-9])/g;

// UK National Insurance numbers: two letters (not D, F, I, U, V; O not second; not BG, GB, KN, NK, NT, TN, ZZ), six
// digits in pairs, a suffix A-D; spaced, dashed or dotted. (The example prefix QQ, which HMRC never issues, counts too.)
const NINO = /(?<![A-Za-z0-9])(?!(?:BG|GB|KN|NK|NT|TN|ZZ))[A-CEGHJ-TW-Z][A-CEGHJ-NP-TW-Z][ .-]{0,2}\d{2}[ .-]{0,2}\d{2}[ .-]{0,2}\d{2}[ .-]{0,2}[A-D](?![A-Za-z0-9])/gi;
const GROUP_DIGITS = /\d+/g;
const GROUP_ALNUM = /[A-Za-z0-9]+/g;

// Known token formats (case-sensitive).
const TOKEN_PATTERNS = [
  String.raw`(?:sk|pk|rk)[-_][A-Za-z0-9_-]{16,}`, // OpenAI sk-…, sk-proj-…, Anthropic sk-ant-…, Stripe sk_/pk_/rk_live_…
  String.raw`(?:whsec|sk_live|rk_live|pk_live)_[A-Za-z0-9]{10,}`,
  String.raw`gh[pousr]_[A-Za-z0-9]{30,}`, // GitHub classic tokens
  String.raw`github_pat_[A-Za-z0-9_]{22,}`, // GitHub fine-grained tokens
  String.raw`glpat-[A-Za-z0-9_-]{20,}`, // GitLab
  String.raw`xox[abposre]-[A-Za-z0-9-]{10,}`, // Slack
  String.raw`(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}`, // AWS access key ids
  String.raw`AIza[0-9A-Za-z_-]{35}`, // Google API keys
  String.raw`ya29\.[0-9A-Za-z_-]{20,}`, // Google OAuth access tokens
  String.raw`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, // JWTs
  String.raw`npm_[A-Za-z0-9]{36}`, // npm
  String.raw`hf_[A-Za-z0-9]{30,}`, // Hugging Face
  String.raw`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, // SendGrid
  String.raw`(?:AC|SK)[0-9a-f]{32}`, // Twilio
];
const TOKENS = new RegExp(String.raw`(?<![A-Za-z0-9_-])(?:${TOKEN_PATTERNS.join("|")})(?![A-Za-z0-9_-])`, "g");
const PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g;
const SLACK_HOOK = /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g;
// The password of credentials in a URL: scheme://user:PASSWORD@host
const URL_PASSWORD = /(?<=[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi;
// A value after a secret-ish name: password=…, "api_key": "…", token: …, Authorization: Bearer …
const NAMED_SECRET =
  /(?<=(?<![A-Za-z])(?:pass(?:word|wd|phrase)?|pwd|secret(?:[_-]?key)?|client[_-]?secret|api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|private[_-]?key|bearer)["']?\s*(?::|=|=>|\bis\b)\s*["']?(?:bearer\s+)?)[^\s"',;]{6,}/gi;
const BEARER = /(?<=\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi;
// Random-looking 40-char base64 (AWS secret access keys and the like): upper, lower and digit all present.
const HIGH_ENTROPY = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function directSecretMatches(text: string): Match[] {
  return [
    ...all(PEM, text),
    ...all(TOKENS, text),
    ...all(SLACK_HOOK, text),
    ...all(URL_PASSWORD, text),
    ...all(NAMED_SECRET, text),
    ...all(BEARER, text),
    ...all(HIGH_ENTROPY, text).filter((m) => {
      const s = text.slice(m.start, m.end);
      return /[A-Z]/.test(s) && /[a-z]/.test(s) && /\d/.test(s);
    }),
  ];
}

const TOKEN_CHAR = /[A-Za-z0-9_+/=.-]/;

/**
 * `text` with every line break (and the spaces or tabs around it) that sits
 * between two token characters removed — a key pasted over two lines, base64
 * wrapped at 76 columns — and, for each position, where it came from.
 */
function unwrapLines(text: string): { text: string; origin: number[] } | undefined {
  if (!/[A-Za-z0-9_+/=.-][ \t]*\r?\n[ \t]*[A-Za-z0-9_+/=.-]/.test(text)) return undefined;
  let out = "";
  const origin: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const m = /^[ \t]*\r?\n[ \t]*/.exec(text.slice(i, i + 64));
    if (m && m[0].length > 0 && i > 0 && TOKEN_CHAR.test(text[i - 1]!) && TOKEN_CHAR.test(text[i + m[0].length] ?? "")) {
      i += m[0].length - 1;
      continue;
    }
    out += text[i];
    origin.push(i);
  }
  origin.push(text.length);
  return { text: out, origin };
}

// A run of base64 (standard or URL-safe) long enough to hold a key.
const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;

/** Base64 runs whose decoded text holds a secret (a key wrapped in base64 to hide it, or a config blob). */
function base64Secrets(text: string): Match[] {
  return all(BASE64_RUN, text).filter((m) => {
    const decoded = Buffer.from(text.slice(m.start, m.end).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
    return /^[\x20-\x7e\t\r\n]*$/.test(decoded) && directSecretMatches(decoded).length > 0;
  });
}

function secretMatches(text: string): Match[] {
  const out = [...directSecretMatches(text), ...base64Secrets(text)];
  const u = unwrapLines(text);
  if (u) {
    for (const m of [...directSecretMatches(u.text), ...base64Secrets(u.text)]) {
      const start = u.origin[m.start]!;
      const end = u.origin[m.end - 1]! + 1;
      if (text.slice(start, end).includes("\n")) out.push({ start, end });
    }
  }
  return out;
}

/** Every detector: a function from normalised text to the ranges it covers. */
export const DETECTOR_MATCHERS: Record<DetectorName, { label: string; find: (text: string) => Match[] }> = {
  secret: { label: "SECRET", find: secretMatches },
  email: { label: "EMAIL", find: (t) => all(EMAIL, t) },
  card: { label: "CARD", find: (t) => groupWindows(t, CARD_RUN, GROUP_DIGITS, 13, 19, luhnValid, () => true) },
  nino: { label: "NINO", find: (t) => all(NINO, t) },
  iban: {
    label: "IBAN",
    find: (t) => groupWindows(t, IBAN_RUN, GROUP_ALNUM, 15, 34, ibanValid, (g) => /^[A-Za-z]{2}\d{2}/.test(g)),
  },
  phone: {
    label: "PHONE",
    find: (t) =>
      all(PHONE, t).filter((m) => {
        const text = t.slice(m.start, m.end);
        const digits = text.replace(/\D/g, "").length;
        return digits >= 7 && digits <= 15 && !DATE.test(text);
      }),
  },
};
