import type { BaseMessage } from "@langchain/core/messages";
import { GRADIENT_CRITIQUE_PROMPT, GRADIENT_EDIT_PROMPT } from "../../src/procedures/prompts.js";

/**
 * TEST DOUBLE: a deterministic, rule-following stand-in for the optimizer's
 * chat model (there is no LLM on these machines). It is deliberately
 * GULLIBLE: every correction typed by a user becomes an instruction line,
 * verbatim — the worst case for injection, so tests show that the scope
 * rules, bounds and guards hold even when the model obeys the attacker.
 *
 * - metaprompt call: `{"rationale", "instructions"}` = current + one line per new correction;
 * - gradient critique call: `{"critique", "recommendations": [corrections], "change_needed"}`;
 * - gradient edit call: current + one line per recommendation.
 */
export function gullibleOptimizer(messages: BaseMessage[]): string {
  const system = String(messages[0].content);
  const user = String(messages[messages.length - 1].content);
  const current = /<current_instructions>\n([\s\S]*?)\n<\/current_instructions>/.exec(user)?.[1] ?? "";
  const lines = current === "(none yet)" ? [] : current.split("\n").filter(Boolean);
  const fresh = (items: string[]) => [...new Set(items)].filter((c) => !lines.includes(c));
  if (system.startsWith(GRADIENT_CRITIQUE_PROMPT)) {
    const recs = fresh(corrections(user));
    return JSON.stringify({ critique: recs.length ? `The assistant ignored ${recs.length} correction(s).` : "Fine.", recommendations: recs, change_needed: recs.length > 0 });
  }
  if (system.startsWith(GRADIENT_EDIT_PROMPT)) {
    const recs = [...user.matchAll(/^- (.+)$/gm)].map((m) => m[1]).filter((r) => r !== "(see the review)");
    return JSON.stringify({ rationale: "applied the review", instructions: [...lines, ...fresh(recs)].join("\n") });
  }
  const add = fresh(corrections(user));
  return JSON.stringify({ rationale: add.length ? `added ${add.length} rule(s) from corrections` : "no change", instructions: [...lines, ...add].join("\n") });
}

/** The corrections in the optimizer's input, as the prompt renders them. */
export function corrections(user: string): string[] {
  return [...user.matchAll(/^correction typed by the user: (.+)$/gm)].map((m) => m[1].trim());
}
