import { normalizeForMatching } from "../privacy/normalize.js";

/**
 * Stored text rendered into a system prompt is output, like HTML: every
 * section the package writes (recalled memories, past conversation turns,
 * learned instructions, and so the middleware's system message) passes
 * its stored text through {@link escapePromptText}, which
 *
 * 1. normalises it as redaction does (NFKC: fullwidth forms to ASCII;
 *    invisible characters — zero-width spaces and joiners, soft hyphens,
 *    bidi controls — dropped; every space and dash to ` ` and `-`);
 * 2. neutralises chat-template role tags (`<|im_start|>`, `<|system|>`,
 *    `[INST]`, `<<SYS>>`, `<start_of_turn>`, `</s>`, `<system>`, a
 *    `system:` or `### Instruction:` line), read through look-alike letters
 *    (Cyrillic `і`, `о`, Greek `ο`, …) and letters spaced out with spaces,
 *    dots or dashes: the brackets become `‹…›`, so the text still says what
 *    was written but no tokenizer or model reads a role boundary;
 * 3. neutralises the package's own section headers ({@link PROMPT_HEADERS})
 *    read the same way, as `«…»`, so a stored text cannot open a section of
 *    its own.
 *
 * What it does not do: decide whether text is an instruction. A memory
 * saying "always answer in French" is rendered as written; the section's
 * preamble tells the model it is information, and the per-user namespace is
 * the boundary that keeps one user's text out of another's prompt.
 */
export function escapePromptText(text: string, options: { oneLine?: boolean } = {}): string {
  let out = normalizeForMatching(String(text)).text;
  if (options.oneLine) out = out.replace(/\s+/g, " ").trim();
  out = replaceFolded(out, ROLE_TAGS, (m) => `‹${m.replace(/[<>[\]|]/g, "").replace(/\s+/g, " ").trim()}›`);
  out = replaceFolded(out, ROLE_LINES, (m) => `‹${m.replace(/[#:]/g, "").trim()}›:`);
  out = replaceFolded(out, HEADERS, (m) => `«${m.replace(/[[\]():【】「」]/g, "").trim()}»`);
  return out;
}

/**
 * Every header the package writes into a system prompt. A section renderer
 * that adds a header adds it here (test/security/prompt-escaping.test.ts
 * checks every exported header constant is listed), so no stored text can
 * forge it.
 */
export const PROMPT_HEADERS: readonly string[] = [
  "[Long-term Memory Context]",
  "[Learned Instructions]",
  "For this user:",
  "Past conversation turns (quoted from earlier threads, with their date and thread):",
];

// Latin look-alikes of Cyrillic, Greek and other letters (one code point each, so positions stay put).
const CONFUSABLES: Record<string, string> = {
  а: "a", в: "b", е: "e", ё: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", ѕ: "s", і: "i", ї: "i", ј: "j", ԁ: "d", ԛ: "q", ԝ: "w", ɡ: "g", һ: "h", ӏ: "l",
  А: "A", В: "B", Е: "E", К: "K", М: "M", Н: "H", О: "O", Р: "P", С: "C", Т: "T", У: "Y", Х: "X", Ѕ: "S", І: "I", Ј: "J", Ԁ: "D", Ԛ: "Q", Ԝ: "W", Һ: "H", Ӏ: "I",
  α: "a", ε: "e", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x", γ: "y",
  Α: "A", Β: "B", Ε: "E", Ζ: "Z", Η: "H", Ι: "I", Κ: "K", Μ: "M", Ν: "N", Ο: "O", Ρ: "P", Τ: "T", Υ: "Y", Χ: "X",
  ı: "i", ł: "l", ø: "o", ſ: "s", "ℓ": "l",
};

/** `text` with look-alike letters as their Latin twins, position for position (UTF-16 units). */
export function foldConfusables(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += CONFUSABLES[c] ?? c;
  }
  return out;
}

/** Between two letters of a spaced-out word: spaces, dots, dashes, underscores. */
const GAP = String.raw`[\s._*-]{0,3}`;

/** A pattern that matches `word` with any letter spaced out ("s y s t e m", "s.y.s.t.e.m"). */
function spaced(word: string): string {
  return [...word].map((c) => (/[a-z0-9]/i.test(c) ? c : "")).join(GAP);
}

const ROLES = ["im_start", "im_end", "im_sep", "system", "user", "assistant", "developer", "human", "ai", "tool", "function", "ipython", "endoftext", "eot_id", "eom_id", "start_header_id", "end_header_id", "begin_of_text", "end_of_text", "start_of_turn", "end_of_turn", "bos", "eos", "sys", "inst", "instructions?", "s"];
/** `word` spaced out; a trailing `s?` stays optional. */
const spacedWord = (r: string) => (r.endsWith("s?") ? `${spaced(r.slice(0, -2))}(?:${GAP}s)?` : spaced(r));
const roleWords = ROLES.map(spacedWord).join("|");

const P = GAP; // between the punctuation of a tag, too: "<.|.s.y.s.t.e.m.|.>"
const ROLE_TAGS = new RegExp(
  [
    String.raw`<${P}\|[^<>\n]{0,80}?\|${P}>`, // <|im_start|>, <|system|>, <|eot_id|>, …
    String.raw`<${P}\|`, // a role tag's halves on their own (<|im_start without its closing |>)
    String.raw`\|${P}>`,
    String.raw`<${P}<${P}/?${P}(?:${roleWords})${P}>${P}>`, // <<SYS>>, <</SYS>>
    String.raw`\[${P}/?${P}(?:${roleWords})${P}\]`, // [INST], [/INST], [SYSTEM]
    String.raw`<${P}/?${P}(?:${roleWords})${P}/?${P}>`, // <system>, </s>, <start_of_turn>
  ].join("|"),
  "giu",
);

// A role label opening a line: "system:", "### Instruction:", "Assistant :".
const LINE_ROLES = ["system", "user", "assistant", "developer", "human", "ai", "tool", "instructions?", "response", "input"];
const lineRoleWords = LINE_ROLES.map(spacedWord).join("|");
const ROLE_LINES = new RegExp(String.raw`(?<=^|\n)[ \t]*(?:#{1,6}[ \t]*)?(?:${lineRoleWords})[ \t]*:`, "giu");

/** A header, any letter spaced out, brackets optional (and any bracket), any case. */
function headerPattern(header: string): string {
  const core = header.replace(/^\[|\]$/g, "").replace(/:$/, "");
  const words = core.split(/[\s-]+/).filter(Boolean).map(spaced);
  const body = words.join(String.raw`[\s._*-]{0,3}`);
  return String.raw`[\[(【「]?\s*${body}\s*[\]):】」]?`;
}
// Long headers are matched by their first words (a forgery need not copy the whole line).
const HEADERS = new RegExp(PROMPT_HEADERS.map((h) => headerPattern(h.length > 40 ? h.split(/\s+/).slice(0, 3).join(" ") : h)).join("|"), "giu");

/** Replaces every match of `re` in `text`, matching on the confusable-folded text (same positions). */
function replaceFolded(text: string, re: RegExp, render: (matched: string) => string): string {
  const folded = foldConfusables(text);
  let out = "";
  let at = 0;
  for (const m of folded.matchAll(re)) {
    if (m[0].length === 0) continue;
    out += text.slice(at, m.index) + render(folded.slice(m.index!, m.index! + m[0].length));
    at = m.index! + m[0].length;
  }
  return out + text.slice(at);
}

/**
 * The text the unsafe-instruction check reads: normalised as above,
 * look-alike letters folded, and words spelled out letter by letter
 * ("i g n o r e", "i.g.n.o.r.e") joined back, then runs of spaces made
 * one. Runs of single letters separated by one space are joined; two or
 * more spaces still separate words (letters spaced with single spaces
 * throughout join into one word, which the check reads without word
 * boundaries).
 */
export function normalizeForChecks(text: string): string {
  const folded = foldConfusables(normalizeForMatching(String(text)).text);
  const joined = folded.replace(/(?<![\p{L}\p{N}])\p{L}(?:[ ._*-]\p{L}(?![\p{L}\p{N}])){1,}/gu, (run) => run.replace(/[ ._*-]/g, ""));
  return joined.replace(/[ \t]+/g, " ");
}
