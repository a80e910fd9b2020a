/**
 * Rule-based reading of first-person statements, used by the offline demo
 * model in place of an LLM. "I'm vegetarian and allergic to peanuts" gives
 * ["User is vegetarian.", "User is allergic to peanuts."]. It knows a handful
 * of sentence shapes and nothing else; a real model replaces it.
 */

/** Verbs the rules conjugate to the third person ("I live" → "User lives"). */
const VERBS: Record<string, string> = {
  live: "lives",
  like: "likes",
  love: "loves",
  hate: "hates",
  dislike: "dislikes",
  prefer: "prefers",
  enjoy: "enjoys",
  have: "has",
  own: "owns",
  work: "works",
  speak: "speaks",
  study: "studies",
  play: "plays",
  drive: "drives",
  eat: "eats",
  avoid: "avoids",
  use: "uses",
};

/** Predicates of "I'm …" that describe the moment, not the person. */
const TRANSIENT = /^(not sure|sure|fine|good|ok|okay|great|sorry|back|here|hungry|tired|bored|thinking|wondering|looking|trying|going|just|also|so|very|really|glad|happy to|curious)\b/i;

/** Parts of "I'm X, Y and Z" that are not a predicate ("I'm vegetarian, as I said"). */
const NOT_A_PREDICATE = /^(as|because|since|so|but|if|when|though|although|which|who|that|too|either|right|you know)\b/i;

/** "my sister" → "their sister", so the fact reads in the third person. */
function thirdPerson(text: string): string {
  return text
    .replace(/\bmy\b/gi, "their")
    .replace(/\bmine\b/gi, "theirs")
    .replace(/\bme\b/gi, "them")
    .replace(/\bmyself\b/gi, "themselves")
    .replace(/\bI'm\b/g, "they are")
    .replace(/\bI\b/g, "they");
}

function sentence(text: string): string {
  const t = text.trim().replace(/[\s,;:]+$/, "");
  return `${t}.`;
}

/** Trailing time phrases that date a statement but are not part of the fact ("last month"). */
const WHEN = /\s+(?:last|this|a|one)\s+(?:week|month|year|spring|summer|autumn|fall|winter)(?:\s+ago)?$|\s+(?:recently|yesterday|lately|a while ago|some time ago|\d+\s+\w+\s+ago)$/i;

/** Facts from one clause that starts with a first-person subject. */
function clauseFacts(clause: string): string[] {
  const c = clause
    .trim()
    .replace(/^[\w ]{1,20}:\s*/, "")
    .replace(/^(and|also|but|so|well|oh|actually|btw|by the way)[, ]+/i, "");
  let m: RegExpExecArray | null;
  if ((m = /^(?:I'm|I am|Im)\s+(?:also\s+)?(.+)$/i.exec(c))) {
    // "I'm vegetarian and allergic to peanuts": each "and" part shares "is".
    return m[1]
      .split(/\s*,\s*|\s+and\s+(?!I\b)/i)
      .map((p) => p.trim())
      .filter((p) => p.length > 0 && !TRANSIENT.test(p) && !NOT_A_PREDICATE.test(p) && !/ing\b/.test(p.split(" ")[0]))
      .map((p) => sentence(`User is ${thirdPerson(p)}`));
  }
  // "I moved to Lisbon last month" → where the user lives now.
  if ((m = /^I(?:'ve| have)?\s+(?:just\s+|recently\s+)?(?:moved|relocated)\s+to\s+(.+)$/i.exec(c))) return [sentence(`User lives in ${thirdPerson(m[1].replace(WHEN, ""))}`)];
  if ((m = /^my name is\s+(.+)$/i.exec(c)) || (m = /^call me\s+(.+)$/i.exec(c))) return [sentence(`User's name is ${m[1]}`)];
  if ((m = /^my\s+([\w\s]+?)\s+(is|are)\s+(.+)$/i.exec(c))) return [sentence(`User's ${m[1]} ${m[2]} ${thirdPerson(m[3])}`)];
  if ((m = /^I\s+(?:do not|don't|never)\s+(\w+)\s+(.+)$/i.exec(c)) && m[1].toLowerCase() in VERBS) {
    return [sentence(`User does not ${m[1].toLowerCase()} ${thirdPerson(m[2])}`)];
  }
  if ((m = /^I\s+(?:can't|cannot|can not)\s+(\w+)\s+(.+)$/i.exec(c))) return [sentence(`User cannot ${m[1].toLowerCase()} ${thirdPerson(m[2])}`)];
  if ((m = /^I\s+(?:really\s+|also\s+)?(\w+)\s+(.+)$/i.exec(c))) {
    const verb = VERBS[m[1].toLowerCase()];
    if (verb) return [sentence(`User ${verb} ${thirdPerson(m[2])}`)];
  }
  return [];
}

/**
 * The durable first-person facts in a user's message, in the third person.
 * Questions and unknown sentence shapes give nothing.
 */
export function firstPersonFacts(text: string): string[] {
  const facts: string[] = [];
  for (const raw of text.split(/(?<=[.!?;])\s+|\n+/)) {
    const s = raw.trim();
    if (!s || s.endsWith("?")) continue;
    const body = s.replace(/[.!;]+$/, "");
    // "I live in Lisbon and I have a dog": split before a new "I".
    for (const clause of body.split(/,?\s+(?:and|but)\s+(?=I\b|I'm\b|my\b)/i)) facts.push(...clauseFacts(clause));
  }
  return [...new Set(facts)];
}
