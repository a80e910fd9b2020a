import type { BaseMessage } from "@langchain/core/messages";
import { ATTRIBUTION_PROMPT, GRADIENT_CRITIQUE_PROMPT, GRADIENT_EDIT_PROMPT } from "../../src/procedures/prompts.js";

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

/**
 * TEST DOUBLE: `gullibleOptimizer` plus the multi-prompt attribution call,
 * answered by keywords: a conversation concerns a prompt when its feedback
 * lines match that prompt's pattern (none: it concerns no prompt).
 */
export function attributingOptimizer(topics: Record<string, RegExp>): (messages: BaseMessage[]) => string {
  return (messages) => {
    const system = String(messages[0].content);
    if (!system.startsWith(ATTRIBUTION_PROMPT)) return gullibleOptimizer(messages);
    const user = String(messages[messages.length - 1].content);
    const assignments = [...user.matchAll(/<conversation id="(\d+)">[\s\S]*?<feedback>\n([\s\S]*?)\n<\/feedback>/g)]
      .map((m) => ({ conversation: Number(m[1]), prompts: Object.keys(topics).filter((name) => topics[name].test(m[2])) }))
      .filter((a) => a.prompts.length > 0);
    return JSON.stringify({ assignments });
  };
}
