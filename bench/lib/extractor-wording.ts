/**
 * The extractor-wording view of a facts development set: the same people,
 * fact ids, answers and tune/held-out split, with every fact rewritten the
 * way the package's extractor writes facts (`DEFAULT_EXTRACTION_PROMPT`:
 * third person, "User" as the subject, one sentence: "User lives in
 * Lisbon.") and every question asked about "the user" instead of the
 * person's name and pronouns. Deterministic rules, no model, no new data.
 *
 * A fact:
 *   - the person's name at the start (full or first name, possessive too)
 *     becomes "User" ("Björn is 58…" → "User is 58…", "Daniel's wife…" →
 *     "User's wife…"); a leading "She"/"He" becomes "User", "Her"/"His"/
 *     "Their" "User's"; a fact already starting with "User" keeps it;
 *   - "User's " goes before a label ("Goal: …", "GP: Dr Hussain"), a word for
 *     a relative, pet or thing of the person (`POSSESSED`: "Husband Chidi…",
 *     "Favourite food…") or a number ("2026 goal: …"); "User is " before an
 *     age ("29 years old…"), an adjective (`ADJECTIVES`: "Allergic to…",
 *     "Lactose intolerant…"), an acronym ("ER nurse at…") or an "-ing" word
 *     ("Learning Spanish" → "User is learning Spanish");
 *   - a fact that starts with someone else's name or another
 *     proper noun (the first word appears capitalised in the middle of one of
 *     the person's texts) keeps its subject: "Ngozi does the school run…" is
 *     about Ngozi;
 *   - any other fact has no subject: "User " goes before it ("Works as…" →
 *     "User works as…"); the first word is lower-cased unless it is an
 *     acronym;
 *   - the person's name anywhere else becomes "the user" ("the user's");
 *   - a final period is added when the fact has no closing punctuation.
 * A question: the person's full or first name becomes "the user" ("the
 * user's"), and so do the third-person pronouns of the person's gender
 * (read from the person's questions and facts: she/her against he/him/his;
 * none are replaced when they tie). Only pronouns that refer to the person
 * are replaced: after a same-gender relative ("her sister… what does she
 * do?") or the name of a same-gender person the facts name ("sister
 * Birgitta") nothing more is; after a relative of either gender
 * that is theirs ("her friend… when she's…") or a name of unknown gender a subject "he"/"she"
 * is left. "her" is "the user's" before a word and "the user"
 * before punctuation, the end or a function word ("reach her at…");
 * "she's" is "the user is" ("the user has" before "been"/"got"/"had"),
 * "she'd" "the user would", "she'll" "the user will", "herself" "the user".
 * A "the user" opening a sentence is capitalised.
 */
import type { DevFact, DevPerson, DevQuestion, FactsDevSet } from "./facts-sets.js";

/** Words for what belongs to the person: "Husband Chidi is…" → "User's husband Chidi is…". */
const POSSESSED = new Set(
  (
    "husband wife son sons daughter daughters mother father mum mom mam dad parents kids children child baby toddler " +
    "brother brothers sister sisters twin twins twins' girlfriend boyfriend partner fiancé fiancée ex-husband ex-wife " +
    "grandson granddaughter grandchild grandchildren grandmother grandma grandfather grandpa grandparents nan " +
    "mother-in-law father-in-law sister-in-law brother-in-law stepkids stepson stepdaughter cousin nephew niece aunt uncle " +
    "family friend best flatmate housemate neighbour colleague client clients doctor gp mentor boss manager supervisor advisor " +
    "coach physio carer aide dog cat pet favourite preferred usual goal budget weight diet home job salary title employer " +
    "knee hip shoulder calf collarbone skin blood cholesterol hearing oven kitchen bedroom sessions trip birthday wedding household pension schedule " +
    "younger older little second third first late old new eldest oldest youngest"
  ).split(" "),
);

/** Words that describe the person: "Allergic to shellfish" → "User is allergic to shellfish". */
const ADJECTIVES = new Set(
  (
    "allergic lactose vegan vegetarian vegetarian; pregnant strict single devout fluent afraid scared introverted introverted; " +
    "dyslexic dyslexic; celiac coeliac coeliac; prediabetic diabetic self-employed licensed chartered hard deaf blind busy proud proud; " +
    "engaged divorced divorced; widowed widow retired from into originally unemployed semi-professional full-time part-time " +
    "left-handed right-handed colour-blind red-green"
  ).split(" "),
);

/** Words after which "her" is an object ("reach her at 6"), not a possessive ("her sister"). */
const FUNCTION_WORDS = new Set(
  (
    "a an the to for from at on in with about up out back now today tonight tomorrow this that these those some any " +
    "something anything nothing when if and or but before after over off as again yet first next know think tell ask " +
    "is was be been am are do does did so than like by into onto through during while until"
  ).split(" "),
);

const FEMALE_RELATIVES =
  "wife mother mum mom mam sister daughter girlfriend grandmother grandma granddaughter niece aunt fiancée nan mother-in-law sister-in-law stepdaughter ex-wife".split(" ");
const MALE_RELATIVES =
  "husband father dad brother son boyfriend grandfather grandpa grandson nephew uncle fiancé father-in-law brother-in-law stepson ex-husband".split(" ");

/** Relatives and others of either gender: a "she"/"he" after them may be theirs ("her friend… when she's…"). */
const NEUTRAL_RELATIVES = "friend partner boss colleague neighbour client kid child baby cousin ex flatmate housemate roommate coach doctor".split(" ");

const WORD = /[\p{L}\p{M}'’-]+/gu;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const isAcronym = (w: string) => w.length >= 2 && /^[\p{Lu}\d-]+$/u.test(w) && /\p{Lu}/u.test(w);
const lowerFirst = (w: string) => (isAcronym(w) ? w : w.charAt(0).toLowerCase() + w.slice(1));
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The person's names, longest first: the full name, the first word ("Amara
 * Okafor", "Amara"), and any other run of the name's words that the person's
 * texts use alone (not right after another capitalised word, as "Chidi
 * Okafor" would use a surname): "Ana Lúcia" of "Ana Lúcia Ferreira", "Yu-ting"
 * of "Lin Yu-ting".
 */
function namesOf(person: DevPerson): string[] {
  const full = person.name.trim();
  const words = full.split(/\s+/);
  const out = new Set([full, words[0]!]);
  const texts = [...person.facts.map((f) => f.text), ...person.questions.map((q) => q.q)].map((t) => t.replace(new RegExp(escape(full), "giu"), ""));
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j <= words.length; j++) {
      const run = words.slice(i, j).join(" ");
      if (out.has(run) || !/^\p{Lu}/u.test(run)) continue;
      const re = new RegExp(`(?<![\\p{L}\\p{M}])${escape(run)}(?![\\p{L}\\p{M}])`, "giu");
      const alone = texts.some((t) => [...t.matchAll(re)].some((m) => !/\p{Lu}[\p{L}\p{M}'’-]*\s$/u.test(t.slice(0, m.index))));
      if (alone) out.add(run);
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** A regex for the person's names (case-insensitive, whole words), with an optional possessive. */
function nameRegex(person: DevPerson, flags = "giu"): RegExp {
  const alt = namesOf(person).map(escape).join("|");
  return new RegExp(`(?<![\\p{L}\\p{M}])(?:${alt})(['’]s)?(?![\\p{L}\\p{M}])`, flags);
}

/**
 * The person's name → "the user" ("the user's"), except inside a longer
 * proper name: after a capitalised word that does not open the sentence
 * ("Peluquería Rosa") or before a capitalised word ("Youssef Pharmacy").
 */
function replaceName(text: string, person: DevPerson): string {
  return text.replace(nameRegex(person), (m: string, poss: string | undefined, offset: number, whole: string) => {
    const before = whole.slice(0, offset);
    const after = whole.slice(offset + m.length);
    const prev = /(\S+)\s+$/u.exec(before)?.[1];
    const opensSentence = prev !== undefined && /^(\S+\s+)?$/u.test(before.replace(/^.*[.!?:;]\s+/su, "")) && before.replace(/^.*[.!?:;]\s+/su, "").trim() === prev;
    if (prev && /^\p{Lu}/u.test(prev) && !/[.,;:!?]$/.test(prev) && !opensSentence && prev !== "I") return m;
    if (!poss && /^\s+\p{Lu}[\p{Ll}]/u.test(after)) return m;
    return poss ? "the user's" : "the user";
  });
}

/** Words that appear capitalised after the start of one of the person's texts: names and other proper nouns. */
function properNouns(person: DevPerson): Set<string> {
  const out = new Set<string>();
  for (const text of [...person.facts.map((f) => f.text), ...person.questions.map((q) => q.q)]) {
    for (const sentence of text.split(/[.!?;:]\s+/)) {
      const words = sentence.match(WORD) ?? [];
      for (const w of words.slice(1)) if (/^\p{Lu}/u.test(w) && w !== "I" && !w.startsWith("I'")) out.add(w.replace(/['’]s$/, ""));
    }
  }
  return out;
}

/**
 * Other people the person's facts name, with their gender where a relative's
 * word gives it ("Husband Chidi", "son Obinna", "sister Birgitta"; "she"/"he"),
 * and "?" for any other name a fact opens with ("Ngozi does the school run…").
 */
function otherPeople(person: DevPerson): Map<string, "she" | "he" | "?"> {
  const out = new Map<string, "she" | "he" | "?">();
  const own = new Set(namesOf(person).flatMap((n) => n.split(/\s+/)));
  const proper = properNouns(person);
  for (const f of person.facts) {
    const words = f.text.match(WORD) ?? [];
    words.forEach((w, i) => {
      const next = words[i + 1]?.replace(/['’]s$/, "");
      if (!next || !/^\p{Lu}/u.test(next) || own.has(next)) return;
      const r = w.toLowerCase();
      if (FEMALE_RELATIVES.includes(r)) out.set(next, "she");
      else if (MALE_RELATIVES.includes(r)) out.set(next, "he");
    });
    const first = words[0]?.replace(/['’]s$/, "");
    if (first && !own.has(first) && proper.has(first) && !out.has(first)) out.set(first, "?");
  }
  return out;
}

/** "she", "he" or undefined (a tie), from the pronouns in the person's questions and facts. */
export function genderOf(person: DevPerson): "she" | "he" | undefined {
  const texts = [...person.questions.map((q) => q.q), ...person.facts.map((f) => f.text)].join(" ").toLowerCase();
  const count = (re: RegExp) => (texts.match(re) ?? []).length;
  const she = count(/\b(she|her|hers|herself)\b/g);
  const he = count(/\b(he|him|his|himself)\b/g);
  return she > he ? "she" : he > she ? "he" : undefined;
}

/** One fact as the extractor writes it. */
export function extractorFact(text: string, person: DevPerson, proper = properNouns(person)): string {
  let t = text.trim();
  const lead = new RegExp(`^(?:${namesOf(person).map(escape).join("|")})(['’]s)?(?![\\p{L}\\p{M}])`, "iu").exec(t);
  if (lead) {
    t = (lead[1] ? "User's" : "User") + t.slice(lead[0].length);
  } else if (/^(she|he)\b/i.test(t)) {
    t = t.replace(/^(she|he)\b/i, "User");
  } else if (/^(her|his|their)\b/i.test(t)) {
    t = t.replace(/^(her|his|their)\b/i, "User's");
  } else if (!/^user\b/i.test(t)) {
    const first = t.match(WORD)?.[0] ?? "";
    const bare = first.replace(/['’]s$/, "");
    const lower = first.toLowerCase();
    const label = /^[^:;,.]{1,40}:/.test(t) && (t.split(":")[0]!.match(WORD) ?? []).length <= 3;
    const possessed = label || POSSESSED.has(lower) || /^\d/.test(t);
    const someoneElse = !possessed && !isAcronym(bare) && proper.has(bare);
    if (!someoneElse) {
      const rest = lowerFirst(t.slice(0, first.length)) + t.slice(first.length);
      if (/^\d+[ -]years?[ -]old/i.test(t)) t = `User is ${t}`;
      else if (possessed) t = `User's ${rest}`;
      else if (ADJECTIVES.has(lower) || isAcronym(bare) || /ing$/.test(lower)) t = `User is ${rest}`;
      else t = `User ${rest}`;
    }
  }
  // The person's name anywhere else.
  t = replaceName(t, person);
  if (!/[.!?]$/.test(t)) t += ".";
  return t;
}

/**
 * What the person's pronouns become in a question (each "the user" unless
 * given): `subject` for "she"/"he" (and before the verb of "she's", "she'd",
 * "she'll"), `object` for "him" and an object "her", `reflexive` for
 * "herself"/"himself". The first-person view (first-person-wording.ts) marks them.
 */
export interface PronounWords {
  subject?: string;
  object?: string;
  reflexive?: string;
}

/** One question asked about "the user". */
export function extractorQuestion(q: string, person: DevPerson, gender = genderOf(person), as: PronounWords = {}): string {
  const { subject = "the user", object = "the user", reflexive = "the user" } = as;
  let t = replaceName(q, person);
  if (gender) {
    const relatives = gender === "she" ? FEMALE_RELATIVES : MALE_RELATIVES;
    const names = namesOf(person).map((n) => n.toLowerCase());
    const pron = gender === "she" ? "she|her|hers|herself" : "he|him|his|himself";
    const re = new RegExp(`\\b(${pron})(['’](s|d|ll))?\\b`, "gi");
    // Where a same-gender relative or another person's name first appears: pronouns after it may be theirs.
    const lowerQ = t.toLowerCase();
    let relativeAt = Infinity;
    for (const r of relatives) {
      const m = new RegExp(`\\b${escape(r)}s?\\b`).exec(lowerQ);
      if (m && m.index < relativeAt) relativeAt = m.index;
    }
    // Another person of the same gender (or of unknown gender, for "he"/"she"): pronouns after their name may be theirs.
    const others = otherPeople(person);
    let sameNameAt = Infinity;
    let otherNameAt = Infinity;
    for (const m of t.matchAll(WORD)) {
      const g = others.get(m[0].replace(/['’]s$/, ""));
      if (g === undefined) continue;
      if (g === gender) sameNameAt = Math.min(sameNameAt, m.index!);
      if (g !== (gender === "she" ? "he" : "she")) otherNameAt = Math.min(otherNameAt, m.index!);
    }
    for (const r of NEUTRAL_RELATIVES) {
      const m = new RegExp(`\\b(?:her|his|the user's)\\s+(?:[\\p{L}-]+\\s+)?${escape(r)}s?\\b`, "u").exec(lowerQ);
      if (m && m.index < otherNameAt) otherNameAt = m.index;
    }
    relativeAt = Math.min(relativeAt, sameNameAt);
    t = t.replace(re, (m, word: string, contraction: string | undefined, c: string | undefined, offset: number, whole: string) => {
      const w = word.toLowerCase();
      if (offset > relativeAt) return m;
      if ((w === "she" || w === "he") && offset > otherNameAt) return m;
      if (w === "she" || w === "he") {
        if (!contraction) return subject;
        const next = (whole.slice(offset + m.length).match(WORD)?.[0] ?? "").toLowerCase();
        if (c!.toLowerCase() === "s") return ["been", "got", "had"].includes(next) ? `${subject} has` : `${subject} is`;
        return c!.toLowerCase() === "d" ? `${subject} would` : `${subject} will`;
      }
      if (w === "herself" || w === "himself") return reflexive;
      if (w === "him") return object;
      if (w === "his" || w === "hers") return "the user's";
      // "her": object before punctuation, the end or a function word; possessive before anything else.
      const after = whole.slice(offset + m.length);
      const next = after.match(/^\s+([\p{L}\p{M}'’-]+)/u)?.[1]?.toLowerCase();
      return next === undefined || FUNCTION_WORDS.has(next) ? object : "the user's";
    });
  }
  return t.replace(/(^|[.!?]\s+)the user/g, (_m, p: string) => `${p}The user`);
}

/** The whole set in the extractor's wording: same ids, answers, dates, replacements and split. */
export function extractorWording(set: FactsDevSet): FactsDevSet {
  return {
    ...set,
    name: `${set.name} (extractor wording)`,
    description: `${set.description} — facts and questions reworded as the extractor writes them (bench/lib/extractor-wording.ts)`,
    people: set.people.map((person) => {
      const proper = properNouns(person);
      const gender = genderOf(person);
      return {
        ...person,
        facts: person.facts.map((f): DevFact => ({ ...f, text: extractorFact(f.text, person, proper) })),
        questions: person.questions.map((q): DevQuestion => ({ ...q, q: extractorQuestion(q.q, person, gender) })),
      };
    }),
  };
}
