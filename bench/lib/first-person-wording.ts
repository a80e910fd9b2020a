/**
 * The first-person view of a facts development set: the facts as the
 * extractor writes them (the extractor-wording view, bench/lib/extractor-wording.ts:
 * "User lives in Lisbon.") and every question asked by the person themselves,
 * the way `withMemory`'s preload searches: with the user's own last message
 * ("where do I live?", "what should I cook for my wife?"). The same people,
 * fact ids, answers and tune/held-out split. Deterministic rules, no model.
 *
 * A question goes through the extractor-wording rules first (the person's
 * name and the pronouns that refer to the person become "the user", pronouns
 * of someone else stay), then every "the user" becomes first person:
 *   - "the user's" → "my", or "mine" before punctuation or the end ("is it hers?");
 *   - "herself"/"himself" of the person → "myself";
 *   - "the user" is the subject ("I") after an auxiliary or modal that opens a
 *     question ("does the user live" → "do I live", "is the user allergic" →
 *     "am I allergic", "has the user" → "have I", "what's the user…" → "what am
 *     I…", "what's the user been…" → "what have I been…"), at the start of a
 *     sentence, or after a question word or conjunction ("when the user gets
 *     home", "before the user moved") when a verb follows; the verb after a
 *     subject agrees ("the user has" → "I have", "is" → "am", "lives" → "live",
 *     "doesn't" → "don't"; adverbs such as "still" in between are skipped);
 *   - anywhere else "the user" is an object: "me", or "myself" when an "I"
 *     comes earlier in the same sentence ("what could I cook for Amara?" →
 *     "what could I cook for myself?": the asker of the written question is
 *     now the person);
 *   - the asker's own "I", "my", "we" of the written question stay.
 */
import { extractorQuestion, extractorWording, genderOf } from "./extractor-wording.js";
import type { DevPerson, DevQuestion, FactsDevSet } from "./facts-sets.js";

/** Marks for the person's own pronouns through the extractor rules: "she"/"he", "him"/object "her", "herself"/"himself". */
const MARK = { subject: "\u0001I\u0001", object: "\u0001me\u0001", reflexive: "\u0001self\u0001" };

/** Auxiliaries and modals: "the user" right after one opens an inverted question ("does the user…"). */
const AUX = new Set(
  (
    "is was does did do has had can could will would should shall may might must " +
    "isn't wasn't doesn't didn't don't hasn't hadn't can't cannot couldn't won't wouldn't shouldn't mustn't"
  ).split(" "),
);
/** The auxiliary of an inverted question with "I" as its subject. */
const AUX_FOR_I: Record<string, string> = { is: "am", does: "do", has: "have", "isn't": "aren't", "doesn't": "don't", "hasn't": "haven't" };
/** Present-tense verbs with "I" as their subject. */
const VERB_FOR_I: Record<string, string> = { is: "am", has: "have", does: "do", goes: "go", "isn't": "am not", "doesn't": "don't", "hasn't": "haven't" };
/** Words before which "the user" is a subject when a verb follows: question words and conjunctions. */
const OPENERS = new Set(
  (
    "what where when who whom how why which whether if that and but or so because while once unless though although " +
    "whenever wherever before after since until till than as"
  ).split(" "),
);
/** Adverbs between a subject and its verb ("the user still lives"). */
const ADVERBS = new Set("always never still usually often also now currently ever really sometimes just already recently normally typically actually generally mostly only even no longer".split(" "));
/** Modal and past forms that do not change with the subject. */
const SUBJECT_VERBS = new Set("can could will would should shall may might must did was had wasn't hadn't didn't can't cannot couldn't won't wouldn't shouldn't mustn't used".split(" "));

/** Irregular past forms: "before the user went independent" has a verb. */
const PAST = new Set(
  (
    "went got met left came began took made said saw ran spent found bought became grew quit lost broke fell gave kept " +
    "knew felt thought wrote drove flew sold taught won wore ate drank sat stood slept swam told paid built caught brought"
  ).split(" "),
);

const WORD = /^[\p{L}\p{M}'’-]+/u;

/** A present-tense third-person verb: "lives", "watches", "tries" (not "is"/"was"/"has", which have their own rows). */
const thirdPerson = (w: string) => w.length > 3 && /s$/.test(w) && !/(ss|us|is|ous)$/.test(w) && !/['’]s$/.test(w);
/** The "I" form of a third-person verb: "lives" → "live", "watches" → "watch", "tries" → "try". */
function baseForm(w: string): string {
  const lower = w.toLowerCase();
  if (VERB_FOR_I[lower]) return VERB_FOR_I[lower]!;
  if (/[^aeiou]ies$/.test(lower)) return w.slice(0, -3) + "y";
  if (/(ch|sh|x|z|ss|o)es$/.test(lower)) return w.slice(0, -2);
  return w.slice(0, -1);
}

/** The words after position `i` of `text` with their offsets (up to `n`). */
function wordsAfter(text: string, i: number, n = 4): Array<{ w: string; at: number }> {
  const out: Array<{ w: string; at: number }> = [];
  let at = i;
  while (out.length < n) {
    const gap = /^\s+/.exec(text.slice(at));
    if (!gap) break;
    at += gap[0].length;
    const m = WORD.exec(text.slice(at));
    if (!m) break;
    out.push({ w: m[0], at });
    at += m[0].length;
  }
  return out;
}

/** The verb a subject at `end` governs, skipping adverbs: its offset and word, or undefined when none follows. */
function verbAfter(text: string, end: number): { w: string; at: number } | undefined {
  for (const x of wordsAfter(text, end, 4)) {
    const lower = x.w.toLowerCase();
    if (ADVERBS.has(lower)) continue;
    if (VERB_FOR_I[lower] || SUBJECT_VERBS.has(lower) || PAST.has(lower) || thirdPerson(lower) || /ed$/.test(lower)) return x;
    return undefined;
  }
  return undefined;
}

/** "the user" wording (with the marks above) → first person (see the file's comment). */
export function toFirstPerson(text: string): string {
  // Possessives first: "the user's" → "my" / "mine".
  let t = text.replace(/\b([Tt])he user['’]s(?![\p{L}\p{M}])/gu, (m: string, _t: string, offset: number, whole: string) => {
    const after = whole.slice(offset + m.length);
    if (/^\s*([.!?,;:]|$)/u.test(after)) return "mine";
    return /^(|.*[.!?]\s+)$/su.test(whole.slice(0, offset)) ? "My" : "my";
  });
  t = t.split(MARK.reflexive).join("myself");
  // Then each subject, object or "the user", left to right (an earlier one's change can move the text after it).
  const re = /\u0001I\u0001|\u0001me\u0001|\b[Tt]he user(?![\p{L}\p{M}'’])/u;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    const at = m.index;
    const end = at + m[0].length;
    const before = t.slice(0, at);
    const sentence = before.replace(/^.*[.!?]\s+/su, "");
    const prevMatch = /([\p{L}\p{M}'’-]+)[\s,]*$/u.exec(sentence);
    const prev = prevMatch?.[1];
    const prevLower = prev?.toLowerCase().replace(/’/g, "'");
    const verb = verbAfter(t, end);
    const whContraction = prevLower !== undefined && /^(what|where|who|how|when|why|which|that)'s$/.test(prevLower);
    const inverted = prevLower !== undefined && (AUX.has(prevLower) || whContraction) && !/,\s*$/.test(sentence);
    let subject: "inverted" | "declarative" | undefined;
    if (m[0] === MARK.subject) subject = inverted ? "inverted" : "declarative";
    // An object mark right after an auxiliary is the subject the extractor rules took for an object ("how did her first…").
    else if (m[0] === MARK.object) subject = inverted && AUX.has(prevLower!) ? "inverted" : undefined;
    else if (inverted) subject = "inverted";
    else if (sentence.trim() === "") subject = "declarative";
    else if (prevLower && OPENERS.has(prevLower) && verb) subject = "declarative";
    if (subject === undefined) {
      // "her 5K best": a possessive the extractor rules took for an object (a number follows).
      if (m[0] === MARK.object && /^\s+\d/.test(t.slice(end))) {
        t = t.slice(0, at) + "my" + t.slice(end);
        continue;
      }
      const reflexive = /(^|[^\p{L}])I(?![\p{L}\p{M}'’])/u.test(sentence) || /(^|[^\p{L}])I['’](m|d|ll|ve)\b/u.test(sentence);
      t = t.slice(0, at) + (reflexive ? "myself" : "me") + t.slice(end);
      continue;
    }
    let head = t.slice(0, at);
    let tail = t.slice(end);
    if (subject === "inverted" && prev && prevMatch) {
      const prevAt = prevMatch.index + (before.length - sentence.length);
      let replaced: string | undefined;
      if (whContraction) {
        const next = wordsAfter(tail, 0, 2).find((x) => !ADVERBS.has(x.w.toLowerCase()))?.w.toLowerCase();
        replaced = prev.slice(0, -2) + (next === "been" || next === "got" ? " have" : " am");
      } else if (AUX_FOR_I[prevLower!]) {
        const form = AUX_FOR_I[prevLower!]!;
        replaced = /^\p{Lu}/u.test(prev) ? form.charAt(0).toUpperCase() + form.slice(1) : form;
      }
      if (replaced !== undefined) head = head.slice(0, prevAt) + replaced + head.slice(prevAt + prev.length);
    } else if (subject === "declarative" && verb) {
      const lower = verb.w.toLowerCase().replace(/’/g, "'");
      if (!SUBJECT_VERBS.has(lower) && (VERB_FOR_I[lower] || thirdPerson(lower))) {
        const v = verb.at - end;
        tail = tail.slice(0, v) + baseForm(verb.w) + tail.slice(v + verb.w.length);
      }
    }
    t = head + "I" + tail;
  }
  return t;
}

/** One question asked by the person themselves, about their own facts. */
export function firstPersonQuestion(q: string, person: DevPerson, gender = genderOf(person)): string {
  return toFirstPerson(extractorQuestion(q, person, gender, MARK));
}

/** The whole set in the first person: the extractor's facts, the person's own questions; same ids, answers, dates, replacements and split. */
export function firstPersonWording(set: FactsDevSet, extractorView: FactsDevSet = extractorWording(set)): FactsDevSet {
  return {
    ...extractorView,
    name: `${set.name} (first person)`,
    description: `${set.description} — facts as the extractor writes them, questions in the person's own first person (bench/lib/first-person-wording.ts)`,
    people: extractorView.people.map((person, i) => {
      const original = set.people[i]!;
      const gender = genderOf(original);
      return {
        ...person,
        questions: original.questions.map((q): DevQuestion => ({ ...q, q: firstPersonQuestion(q.q, original, gender) })),
      };
    }),
  };
}
