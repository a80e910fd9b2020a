import { parseJsonFromReply } from "../extract/parse.js";
import type { CostMeter } from "./cost.js";
import { ATTRIBUTION_PROMPT } from "./prompts.js";
import { fitTrajectories, renderNamedPrompt, type PromptGuidance, type Trajectory } from "./render.js";

/** One named prompt of a {@link MultiPromptOptimizer}, with LangMem-style guidance. */
export interface PromptSpec extends PromptGuidance {
  /** The prompt's name (its procedure key: 1-100 letters, digits, '_' or '-'). */
  name: string;
}

/**
 * Which prompts each conversation concerns, from the model's reply:
 * `{"assignments": [{"conversation": 1, "prompts": ["tone"]}]}`, or
 * `{"tone": [1, 3]}` / `{"prompts": {"tone": [1]}}`. Unknown prompt names and
 * conversation numbers are ignored; undefined when the reply holds neither shape.
 */
export function parseAttributionReply(reply: string, names: readonly string[], conversations: number, maxChars: number): Map<number, Set<string>> | undefined {
  const value = parseJsonFromReply(reply, "object", maxChars);
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const out = new Map<number, Set<string>>();
  const add = (n: unknown, name: unknown) => {
    const i = typeof n === "string" ? Number(n) : n;
    if (typeof i !== "number" || !Number.isInteger(i) || i < 1 || i > conversations || typeof name !== "string" || !names.includes(name)) return;
    if (!out.has(i)) out.set(i, new Set());
    out.get(i)!.add(name);
  };
  const list = Array.isArray(o.assignments) ? o.assignments : Array.isArray(o.conversations) ? o.conversations : undefined;
  if (list) {
    for (const a of list) {
      const e = a as { conversation?: unknown; id?: unknown; prompts?: unknown };
      if (Array.isArray(e?.prompts)) for (const name of e.prompts) add(e.conversation ?? e.id, name);
    }
    return out;
  }
  const byName = o.prompts && typeof o.prompts === "object" && !Array.isArray(o.prompts) ? (o.prompts as Record<string, unknown>) : o;
  let shaped = false;
  for (const [name, ids] of Object.entries(byName)) {
    if (!Array.isArray(ids)) continue;
    shaped = true;
    for (const n of ids) add(n, name);
  }
  return shaped || Object.keys(byName).length === 0 ? out : undefined;
}

/**
 * One attribution call (and one more on an unparseable reply, while the
 * budget allows): for each of `trajectories` (numbered from 1), the prompts
 * it concerns. Conversations that did not fit the budget are left out of the
 * map and of `shown`; undefined when no reply could be parsed.
 */
export async function attribute(
  meter: CostMeter,
  prompts: readonly { spec: PromptSpec; instructions: string }[],
  trajectories: readonly Trajectory[],
  maxReplyChars: number,
): Promise<{ map: Map<number, Set<string>>; shown: number[] } | undefined> {
  const head = `<prompts>\n${prompts.map((p) => renderNamedPrompt(p.spec.name, p.instructions, p.spec)).join("\n")}\n</prompts>`;
  const fit = fitTrajectories(trajectories, meter.maxChars - ATTRIBUTION_PROMPT.length - head.length - 2);
  const shown = fit.used.map((t) => trajectories.indexOf(t) + 1);
  const user = `${head}\n\n${fit.text}`;
  const names = prompts.map((p) => p.spec.name);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0 && !meter.canAfford(ATTRIBUTION_PROMPT.length + user.length)) break;
    const map = parseAttributionReply(await meter.call(ATTRIBUTION_PROMPT, user), names, trajectories.length, maxReplyChars);
    if (map) {
      for (const n of [...map.keys()]) if (!shown.includes(n)) map.delete(n);
      return { map, shown };
    }
  }
  return undefined;
}
