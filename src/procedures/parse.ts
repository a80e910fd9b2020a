import { parseJsonFromReply, stripReasoning } from "../extract/parse.js";

/**
 * Lenient parsing of the optimizer's replies: JSON in code fences or prose,
 * `<think>` blocks, other field names (`updated_prompt`, `prompt`,
 * `analysis`), or an `<instructions>…</instructions>` block.
 */

/** Updated instructions and why, as the model proposed them. */
export interface ParsedProposal {
  instructions: string;
  rationale: string;
}

/** The gradient strategy's review. */
export interface ParsedCritique {
  critique: string;
  recommendations: string[];
  changeNeeded: boolean;
}

const INSTRUCTION_FIELDS = ["instructions", "updated_instructions", "updated_prompt", "new_prompt", "prompt", "system_prompt"];
const RATIONALE_FIELDS = ["rationale", "analysis", "reason", "reasoning", "explanation"];

function firstString(o: Record<string, unknown>, fields: readonly string[]): string | undefined {
  for (const f of fields) if (typeof o[f] === "string") return o[f] as string;
  return undefined;
}

/** The proposal in a reply, or undefined when none can be found. */
export function parseProposalReply(reply: string, maxChars: number): ParsedProposal | undefined {
  const value = parseJsonFromReply(reply, "object", maxChars);
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const instructions = firstString(o, INSTRUCTION_FIELDS);
    if (instructions !== undefined) return { instructions: instructions.trim(), rationale: (firstString(o, RATIONALE_FIELDS) ?? "").trim() };
  }
  if (typeof reply !== "string" || reply.length > maxChars) return undefined;
  const text = stripReasoning(reply);
  const m = /<instructions>([\s\S]*?)<\/instructions>/i.exec(text);
  if (m) {
    const r = /<rationale>([\s\S]*?)<\/rationale>/i.exec(text);
    return { instructions: m[1].trim(), rationale: (r?.[1] ?? "").trim() };
  }
  return undefined;
}

/**
 * Prose that says the instructions need no change ("No change needed.",
 * "The instructions are fine as they are", "nothing to update").
 */
const NO_CHANGE = /\b(no (further |other )?(changes?|updates?|edits?|modifications?)\b[^.\n]{0,20}\b(needed|required|necessary|warranted)|(needs?|requires?) no (changes?|updates?|edits?)|nothing (needs )?to (change|update|fix)|(instructions|prompt) (are|is) (fine|good|adequate|sufficient)( as (they are|it is))?|no (change|update) (is )?needed)\b/i;
/** Prose that asks for a change anyway ("but add…", "should", "recommend"). */
const ASKS_CHANGE = /\b(should|recommend|add|remove|change the|replace|missing|must)\b/i;

/** Whether a prose critique (no JSON) asks for a change. */
export function proseAsksForChange(text: string): boolean {
  return !(NO_CHANGE.test(text) && !ASKS_CHANGE.test(text.replace(NO_CHANGE, "")));
}

/** The review in a reply; a reply without JSON is taken as the critique's text ("no change needed." and the like mean no change). */
export function parseCritiqueReply(reply: string, maxChars: number): ParsedCritique | undefined {
  const value = parseJsonFromReply(reply, "object", maxChars);
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const recs = Array.isArray(o.recommendations) ? o.recommendations : Array.isArray(o.changes) ? o.changes : [];
    const recommendations = recs.map((r) => (typeof r === "string" ? r : typeof (r as { text?: unknown })?.text === "string" ? (r as { text: string }).text : "")).filter(Boolean);
    const critique = firstString(o, ["critique", "review", "analysis", ...RATIONALE_FIELDS]) ?? "";
    const flag = o.change_needed ?? o.changeNeeded;
    return { critique: critique.trim(), recommendations, changeNeeded: typeof flag === "boolean" ? flag : recommendations.length > 0 };
  }
  if (typeof reply !== "string" || reply.length > maxChars) return undefined;
  const text = stripReasoning(reply);
  return text ? { critique: text, recommendations: [], changeNeeded: proseAsksForChange(text) } : undefined;
}
