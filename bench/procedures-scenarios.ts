/**
 * The scenarios of `npm run bench:procedures`, and the scripted optimizer
 * model used when no real chat model is configured.
 *
 * A rule is checked in the INSTRUCTIONS by a pattern about its meaning
 * (`present`), not by the words of the correction that taught it: the
 * scripted model words rules differently from the corrections, and a real
 * model words them as it likes.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { ATTRIBUTION_PROMPT, GRADIENT_CRITIQUE_PROMPT, GRADIENT_EDIT_PROMPT } from "../src/procedures/prompts.js";
import { rng } from "../test/helpers/rng.js";

export interface Rule {
  id: string;
  /** What the user types when the answer breaks the rule. */
  correction: string;
  /** How the scripted model words the rule in the instructions. */
  line: string;
  /** Whether the instructions hold the rule (any wording). */
  present: RegExp;
  /** The rule this one reverses (contradictory feedback): it must be gone afterwards. */
  replaces?: string;
  /** For multi-prompt scenarios: the prompt it belongs to. */
  prompt?: string;
}

/** One round: the feedback given, then a learning run. */
export type Round = { teach: string } | { praise: string };

export interface Scenario {
  name: string;
  rules: Rule[];
  rounds: Round[];
  /** Named prompts (multi-prompt scenario), with the keywords the scripted attribution uses. */
  prompts?: { name: string; whenToUpdate: string; keywords: RegExp }[];
  /** Noise of the scripted model: chance to drop an existing line, chance of an unparseable reply. */
  noise?: { drop: number; garble: number };
}

const R = (id: string, correction: string, line: string, present: RegExp, extra: Partial<Rule> = {}): Rule => ({ id, correction, line, present, ...extra });

const BASE_RULES: Rule[] = [
  R("bullets", "Please answer with bullet points, one per line.", "Format answers as a bulleted list, one point per line.", /bullet/i),
  R("iso-dates", "Write dates like 2026-12-05, never 05/12/2026.", "Write every date in ISO form (YYYY-MM-DD).", /ISO|YYYY-MM-DD/i),
  R("summary", "Finish with a one-line summary starting 'In short:'.", "End each answer with a line that begins with \"In short:\".", /In short:/i),
  R("no-jargon", "Stop using acronyms I don't know, like SLA and ETA.", "Spell out acronyms instead of using jargon.", /acronym|jargon/i),
  R("cite", "Tell me where the information comes from.", "Name the source of each fact you give.", /source/i),
  R("short", "Too long. Keep it under 100 words.", "Keep answers under 100 words.", /100 words/i),
];

/** The scenarios, in the order they run. */
export const SCENARIOS: Scenario[] = [
  {
    name: "six rules taught over time",
    rules: BASE_RULES,
    rounds: BASE_RULES.map((r) => ({ teach: r.id })),
  },
  {
    name: "contradictory and positive feedback",
    rules: [
      ...BASE_RULES.slice(0, 3),
      R("prose", "Actually, no more bullet points: write it as a short paragraph.", "Write answers as short paragraphs, not lists.", /paragraph/i, { replaces: "bullets" }),
    ],
    rounds: [{ teach: "bullets" }, { teach: "iso-dates" }, { praise: "Perfect, exactly what I needed." }, { teach: "prose" }, { praise: "Great, thanks!" }, { teach: "summary" }],
  },
  {
    name: "noisy optimizer (drops a rule 30%, unparseable 20%)",
    rules: BASE_RULES,
    rounds: BASE_RULES.map((r) => ({ teach: r.id })),
    noise: { drop: 0.3, garble: 0.2 },
  },
  {
    name: "feedback aimed at one of three prompts",
    rules: [
      R("warm", "You sound like a robot, be friendlier.", "Use a warm, friendly tone.", /friendly|warm/i, { prompt: "tone" }),
      R("search-first", "Search the knowledge base before answering.", "Search the knowledge base before you answer.", /knowledge base/i, { prompt: "tools" }),
      R("handoff", "When I ask for a human, hand me to a person at once.", "Hand the user to a person as soon as they ask for a human.", /person|human/i, { prompt: "escalation" }),
      R("no-emoji", "No emoji, please.", "Do not use emoji.", /emoji/i, { prompt: "tone" }),
    ],
    rounds: [{ teach: "warm" }, { teach: "search-first" }, { teach: "handoff" }, { praise: "Thanks, that was quick." }, { teach: "no-emoji" }],
    prompts: [
      { name: "tone", whenToUpdate: "feedback about style, tone or wording", keywords: /robot|friend|emoji|tone/i },
      { name: "tools", whenToUpdate: "feedback about which tool or source to use", keywords: /search|knowledge|tool/i },
      { name: "escalation", whenToUpdate: "feedback about handing over to a person", keywords: /human|person|manager/i },
    ],
  },
];

const currentOf = (user: string) => {
  const m = /<current_instructions>\n([\s\S]*?)\n<\/current_instructions>/.exec(user)?.[1] ?? "";
  return m === "(none yet)" ? [] : m.split("\n").filter(Boolean);
};
const feedbackText = (user: string) => [...user.matchAll(/^(correction typed by the user|comment): (.+)$/gm)].map((m) => m[2]);

/**
 * TEST DOUBLE: a scripted optimizer model that understands the scenario's
 * corrections (it maps each to its rule and words it its own way), reverses a
 * rule on contradictory feedback, changes nothing on praise, answers the
 * multi-prompt attribution by keywords, and, with `noise`, sometimes drops an
 * existing line from its rewrite or answers with no JSON (seeded: the same
 * every run). It complies when asked to keep lines it dropped.
 */
export function scriptedOptimizer(s: Scenario, seed = 7): (messages: BaseMessage[]) => string {
  const random = rng(seed);
  const rulesIn = (texts: string[]) => s.rules.filter((r) => texts.some((t) => t === r.correction));
  const rewrite = (current: string[], texts: string[], noisy: boolean) => {
    let lines = [...current];
    for (const r of rulesIn(texts)) {
      if (r.replaces) {
        const old = s.rules.find((x) => x.id === r.replaces)!;
        lines = lines.filter((l) => !old.present.test(l));
      }
      if (!lines.some((l) => r.present.test(l))) lines.push(r.line);
    }
    if (noisy && s.noise && current.length > 1 && random() < s.noise.drop) lines.splice(Math.floor(random() * current.length), 1);
    return lines;
  };
  return (messages) => {
    const system = String(messages[0].content);
    const user = String(messages[messages.length - 1].content);
    if (system.startsWith(ATTRIBUTION_PROMPT)) {
      const assignments = [...user.matchAll(/<conversation id="(\d+)">[\s\S]*?<feedback>\n([\s\S]*?)\n<\/feedback>/g)].map((m) => ({
        conversation: Number(m[1]),
        prompts: (s.prompts ?? []).filter((p) => p.keywords.test(m[2])).map((p) => p.name),
      }));
      return JSON.stringify({ assignments });
    }
    if (s.noise && random() < s.noise.garble) return "Sure, I will keep that in mind for next time.";
    const current = currentOf(user);
    const keep = /removed these lines of the current instructions:\n([\s\S]*?)\nAt most/.exec(user);
    if (system.startsWith(GRADIENT_CRITIQUE_PROMPT)) {
      const recs = rulesIn(feedbackText(user)).filter((r) => r.replaces || !current.some((l) => r.present.test(l))).map((r) => r.line);
      return JSON.stringify({ critique: recs.length ? "The answers ignored the feedback." : "No change needed.", recommendations: recs, change_needed: recs.length > 0 });
    }
    if (system.startsWith(GRADIENT_EDIT_PROMPT)) {
      const recs = [...user.matchAll(/^- (.+)$/gm)].map((m) => m[1]);
      // No usable recommendations: it reads the conversations' feedback, when it was given them.
      const texts = recs.includes("(see the review)") ? feedbackText(user) : s.rules.filter((r) => recs.includes(r.line)).map((r) => r.correction);
      return JSON.stringify({ rationale: "applied the review", instructions: rewrite(current, texts, !keep).join("\n") });
    }
    const texts = feedbackText(user);
    const lines = rewrite(current, texts, !keep);
    // Asked to keep what it dropped: puts back every removed line the feedback did not reverse.
    const reversed = rulesIn(texts).filter((r) => r.replaces).map((r) => s.rules.find((x) => x.id === r.replaces)!.present);
    if (keep) for (const l of keep[1].split("\n").map((x) => x.replace(/^- /, ""))) if (!lines.includes(l) && !reversed.some((p) => p.test(l))) lines.splice(Math.min(current.indexOf(l), lines.length), 0, l);
    return JSON.stringify({ rationale: "updated from the feedback", instructions: lines.join("\n") });
  };
}
