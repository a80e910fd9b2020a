/**
 * The redaction attack corpus: every built-in detector's values, written the
 * ways that slipped past the old detectors (invisible characters, other
 * digit scripts, fullwidth forms, any separator, other cases, IDN domains,
 * obfuscated "at"), plus secret formats, PII in object keys and values split
 * across fields. Each case names the text that must never reach the embedder
 * or the disk (`needle`).
 */
export interface RedactionCase {
  name: string;
  /** The value put through ProtectedStore. */
  value: Record<string, unknown>;
  /** Texts (before any formatting) that must not appear, normalised, anywhere the embedder or the disk sees. */
  needles: string[];
}

const INVISIBLES: Record<string, string> = { zwsp: "\u200B", zwnj: "\u200C", zwj: "\u200D", wj: "\u2060", bom: "\uFEFF", shy: "\u00AD", lrm: "\u200E" };
const DIGIT_ZEROS: Record<string, number> = { arabicIndic: 0x660, persian: 0x6f0, devanagari: 0x966, bengali: 0x9e6, thai: 0xe50, fullwidth: 0xff10 };

const interleave = (s: string, sep: string) => [...s].join(sep);
const fullwidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const digitsIn = (s: string, zero: number) => s.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));

/** Formatting variants of one text (the ones every detector must see through). */
function textVariants(s: string): [string, string][] {
  const out: [string, string][] = [["plain", s]];
  for (const [n, ch] of Object.entries(INVISIBLES)) out.push([n, interleave(s, ch)]);
  out.push(["fullwidth", fullwidth(s)]);
  if (/\d/.test(s)) for (const [n, zero] of Object.entries(DIGIT_ZEROS)) out.push([`digits-${n}`, digitsIn(s, zero)]);
  return out;
}

/** Separator variants of digit or alphanumeric groups. */
function groupVariants(groups: string[]): [string, string][] {
  const seps: Record<string, string> = { none: "", space: " ", dash: "-", dot: ".", slash: "/", underscore: "_", nbsp: "\u00A0", nnbsp: "\u202F", endash: "\u2013", spacedDash: " - ", doubleSpace: "  ", ideographic: "\u3000" };
  return Object.entries(seps).map(([n, sep]) => [`sep-${n}`, groups.join(sep)]);
}

const CARDS = [["4111", "1111", "1111", "1111"], ["5500", "0000", "0000", "0004"], ["3782", "822463", "10005"]];
const IBANS = [["DE89", "3704", "0044", "0532", "0130", "00"], ["GB82", "WEST", "1234", "5698", "7654", "32"]];
const PHONES = ["+351 912 345 678", "(030) 1234 5678"];
const EMAILS = ["ana.silva@example.com", "JOHN.DOE+work@Example.CO.UK"];
const SECRETS: [string, string, string][] = [
  // [name, text, needle]
  ["openai", "sk-proj-AbCdEf1234567890GhIjKlMn", "sk-proj-AbCdEf1234567890GhIjKlMn"],
  ["anthropic", "sk-ant-api03-AbCdEf1234567890GhIjKlMnOp", "AbCdEf1234567890GhIjKlMnOp"],
  ["github-classic", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"],
  ["github-pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"],
  ["gitlab", "glpat-AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIjKlMnOpQrSt"],
  ["aws-key-id", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"],
  ["aws-secret", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
  ["stripe-restricted", "rk_live_51H8abcdefghijklmnopqrstuv", "51H8abcdefghijklmnopqrstuv"],
  ["stripe-secret", "sk_live_51H8abcdefghijklmnopqrstuv", "51H8abcdefghijklmnopqrstuv"],
  ["slack", "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", "123456789012-1234567890123-abcdefghijklmnopqrstuvwx"],
  ["slack-webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"],
  ["google", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "SyA1234567890abcdefghijklmnopqrstuv"],
  ["jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
  ["npm", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"],
  ["huggingface", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "abcdefghijklmnopqrstuvwxyzABCDEFGH"],
  ["pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQAB\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw"],
  ["pem-openssh-unterminated", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"],
  ["password=", "password=Tr0ub4dor&3x", "Tr0ub4dor&3x"],
  ["env-password", "DB_PASSWORD: hunter2hunter2", "hunter2hunter2"],
  ["json-api-key", `"api_key": "q8Zt7LmN2pRs"`, "q8Zt7LmN2pRs"],
  ["password-is", "my password is CorrectHorse9", "CorrectHorse9"],
  ["url-credentials", "postgres://admin:S3cr3tPassw0rd@db.example.com/prod", "S3cr3tPassw0rd"],
  ["bearer", "Authorization: Bearer abcDEF123456ghiJKL789mno", "abcDEF123456ghiJKL789mno"],
  ["twilio", "SK0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"],
];

const wrap = (s: string) => ({ text: `please note ${s} thanks` });

export function redactionCorpus(): RedactionCase[] {
  const cases: RedactionCase[] = [];
  const add = (name: string, value: Record<string, unknown>, needles: string[]) => cases.push({ name, value, needles });
  for (const groups of CARDS) {
    const needle = groups.join("");
    for (const [sep, s] of groupVariants(groups)) add(`card ${needle.slice(0, 4)} ${sep}`, wrap(s), [needle]);
    for (const [v, s] of textVariants(groups.join(" "))) add(`card ${needle.slice(0, 4)} ${v}`, wrap(s), [needle]);
    add(`card ${needle.slice(0, 4)} glued to a word`, wrap(`acct${needle}`), [needle]);
  }
  for (const groups of IBANS) {
    const needle = groups.join("");
    for (const [sep, s] of groupVariants(groups)) add(`iban ${needle.slice(0, 4)} ${sep}`, wrap(s), [needle]);
    for (const [v, s] of textVariants(groups.join(" "))) add(`iban ${needle.slice(0, 4)} ${v}`, wrap(s), [needle]);
    add(`iban ${needle.slice(0, 4)} lowercase`, wrap(groups.join(" ").toLowerCase()), [needle]);
    add(`iban ${needle.slice(0, 4)} lowercase dashed`, wrap(groups.join("-").toLowerCase()), [needle]);
  }
  for (const phone of PHONES) {
    const needle = phone.replace(/\D/g, "");
    for (const [v, s] of textVariants(phone)) add(`phone ${needle.slice(0, 4)} ${v}`, wrap(s), [needle]);
    for (const sep of [".", "/", "-", "\u00A0"]) add(`phone ${needle.slice(0, 4)} sep ${JSON.stringify(sep)}`, wrap(phone.replace(/ /g, sep)), [needle]);
  }
  for (const email of EMAILS) {
    const [local, domain] = email.split("@") as [string, string];
    const needles = [email];
    for (const [v, s] of textVariants(email)) add(`email ${local} ${v}`, wrap(s), needles);
    add(`email ${local} fullwidth at`, wrap(`${local}\uFF20${domain}`), needles);
    add(`email ${local} small at`, wrap(`${local}\uFE6B${domain}`), needles);
    add(`email ${local} [at] [dot]`, wrap(`${local} [at] ${domain.replace(/\./g, " [dot] ")}`), needles);
    add(`email ${local} (at)`, wrap(`${local}(at)${domain}`), needles);
    add(`email ${local} spaced @`, wrap(`${local} @ ${domain}`), needles);
    add(`email ${local} lowercase`, wrap(email.toLowerCase()), needles);
  }
  add("email IDN domain", wrap("josé.müller@exämple.de"), ["josé.müller@exämple.de"]);
  add("email IDN TLD", wrap("anna@пример.рф"), ["anna@пример.рф"]);
  add("email punycode", wrap("ana@xn--exmple-cua.de"), ["ana@xn--exmple-cua.de"]);
  for (const [name, text, needle] of SECRETS) {
    add(`secret ${name}`, wrap(text), [needle]);
    add(`secret ${name} zwsp`, wrap(interleave(text, "\u200B")), [needle]);
    add(`secret ${name} fullwidth`, wrap(fullwidth(text)), [needle]);
  }
  // Formats real text uses: repeated separators, line breaks, encodings.
  for (const [n, phone] of Object.entries({ "spaced dots": "555 . 123 . 4567", "double spaces": "555  123  4567", "spaced slashes": "030 / 1234 / 5678", "tabs": "555\t123\t4567", "spaced dashes + CC": "+44 - 20 - 7946 - 0958" })) {
    add(`phone ${n}`, wrap(phone), [phone.replace(/\D/g, "")]);
  }
  for (const [n, card] of Object.entries({ "broken by a newline": "4111 1111\n1111 1111", "broken by CRLF": "4111 1111 1111\r\n1111", "one group per line": "5500\n0000\n0000\n0004" })) {
    add(`card ${n}`, wrap(card), [card.replace(/\D/g, "")]);
  }
  add("iban broken by a newline", wrap("DE89 3704 0044\n0532 0130 00"), ["DE89370400440532013000"]);
  add("email %40 for @", wrap("ana.silva%40example.com"), ["ana.silva@example.com", "ana.silva%40example.com"]);
  add("email %40 in a mailto link", wrap("mailto:ana.silva%40example.com?subject=hi"), ["ana.silva%40example.com"]);
  add("email quoted local part", wrap(`"ana silva"@example.com`), ["ana silva@example.com"]);
  add("email quoted local part with dots", wrap(`"ana.silva+x"@example.co.uk`), ["ana.silva+x@example.co.uk"]);
  const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
  add("secret sk- split over two lines", wrap(`${key.slice(0, 20)}\n${key.slice(20)}`), [key]);
  add("secret sk- split over CRLF, indented", wrap(`${key.slice(0, 14)}\r\n    ${key.slice(14)}`), [key]);
  add("secret sk- split in the prefix", wrap(`sk-proj-Ab3\n${key.slice(11)}`), [key]);
  for (const [n, b64] of Object.entries({
    base64: Buffer.from(key).toString("base64"),
    "base64url": Buffer.from(key).toString("base64url"),
    "base64 of KEY=…": Buffer.from(`OPENAI_API_KEY=${key}`).toString("base64"),
    "base64 wrapped at 20 columns": Buffer.from(`api_key: ${key}`).toString("base64").replace(/(.{20})/g, "$1\n"),
  })) {
    add(`secret sk- ${n}`, wrap(b64), [b64.replace(/\n/g, "")]);
  }
  for (const [n, nino] of Object.entries({ spaced: "AB 12 34 56 C", compact: "AB123456C", lowercase: "ab123456c", dashed: "AB-12-34-56-C", "HMRC example": "QQ 12 34 56 A", dotted: "JG.10.37.21.D" })) {
    add(`nino ${n}`, wrap(nino), [nino.replace(/[^A-Za-z0-9]/g, "")]);
    add(`nino ${n} zwsp`, wrap(interleave(nino, "\u200B")), [nino.replace(/[^A-Za-z0-9]/g, "")]);
    add(`nino ${n} fullwidth`, wrap(fullwidth(nino)), [nino.replace(/[^A-Za-z0-9]/g, "")]);
  }
  // PII in object keys.
  add("email as an object key", { contacts: { "ana.silva@example.com": "work" } }, ["ana.silva@example.com"]);
  add("card as an object key", { cards: { "4111 1111 1111 1111": "visa" } }, ["4111111111111111"]);
  add("two PII keys that redact alike", { m: { "ana@example.com": "a", "bob@example.org": "b" } }, ["ana@example.com", "bob@example.org"]);
  // Values split across fields.
  add("card split over two fields", { first: "4111 1111", second: "1111 1111" }, ["4111111111111111"]);
  add("card split over an array", { parts: ["4111", "1111", "1111", "1111"] }, ["4111111111111111"]);
  add("iban split over fields", { bank: "DE89 3704 0044", rest: "0532 0130 00" }, ["DE89370400440532013000"]);
  add("email split user/domain", { user: "ana.silva", domain: "@example.com" }, ["ana.silva@example.com"]);
  add("secret split over fields", { name: "password", value: "password=Tr0ub4dor&3x" }, ["Tr0ub4dor&3x"]);
  return cases;
}

/** Ordinary texts that must come out exactly as they went in. */
export const BENIGN_TEXTS = [
  "I am 42 and vegetarian since 2019",
  "Meeting at 10:30 on 2024-05-01 in room 12",
  "version 1.2.3 released",
  "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
  "uuid 3f2b8c1e-9d4a-4e6b-8f1a-2c3d4e5f6a7b",
  "family 👨‍👩‍👧 and flag 🏳️‍🌈",
  "يحب القهوة العربية",
  "東京に住んでいます",
  "score 98 out of 100, 3 times",
  "the password policy changed",
  "Q3 2025 revenue was 1200 units",
  "flight BA 12 34 56 departs at 10",
  "Regards,\nBob",
  "see section 4.2.1 and page 12",
];
