import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { underlyingStore } from "../scope/resolve-store.js";
import { attribute, type PromptSpec } from "./attribution.js";
import { CostMeter, type OptimizerCost } from "./cost.js";
import { markEach, type FeedbackOutcome, type FeedbackRecord } from "./feedback.js";
import { asTrajectory, checkAgentWide, learnOnce, pendingFeedback, retireUsed, type LearnResult } from "./learn-run.js";
import { ProcedureOptimizer, scopeOf } from "./optimizer.js";
import { procedureLocation, getProcedure } from "./store.js";
import type { ProcedureScope } from "./types.js";

export type { PromptSpec } from "./attribution.js";

/** Options of {@link MultiPromptOptimizer}. */
export interface MultiPromptOptimizerOptions {
  /** The single-prompt optimizer that updates each prompt (its model, strategy, limits and policies apply). */
  optimizer: ProcedureOptimizer;
  /** The agent's named prompts (at least one, names unique). */
  prompts: readonly PromptSpec[];
}

/** Where a multi-prompt run learns: an agent (agent-wide) or one of its users. */
export interface MultiLearnTarget {
  agentId: string;
  /** @default undefined (the agent's own prompts; needs the optimizer's agentWide policy) */
  userId?: string;
  /** Agent-wide runs: every user's pending feedback too (see ProcedureOptimizer). @default false */
  includeUserFeedback?: boolean;
}

/** What {@link MultiPromptOptimizer.learn} did. */
export interface MultiLearnResult {
  /** For each feedback record used: the prompts it was found to concern (empty: none). */
  attribution: { feedbackId: string; prompts: string[]; by: "caller" | "model" | "single prompt" }[];
  /** The run of each prompt that had feedback, by name. */
  results: Record<string, LearnResult>;
  /** What the attribution call cost (each prompt's run reports its own in `results`). */
  attributionCost?: OptimizerCost;
  /** Feedback left pending (an unparseable attribution, a budget too small, a prompt's run that could not finish). */
  pendingIds: string[];
}

/**
 * Learns for an agent with several named prompts (tone, tool use,
 * escalation…) from one stream of feedback, as LangMem's
 * `create_multi_prompt_optimizer`: one attribution call decides which
 * prompts each piece of feedback concerns (feedback recorded with `prompt`
 * skips it), then only those prompts are updated, each from its own
 * feedback, with its `updateInstructions` and `whenToUpdate`.
 *
 * @example
 * ```ts
 * const multi = new MultiPromptOptimizer({
 *   optimizer: new ProcedureOptimizer({ model }),
 *   prompts: [{ name: "tone", whenToUpdate: "feedback about style or tone" }, { name: "escalation" }],
 * });
 * const { attribution, results } = await multi.learn(store, { agentId: "support-bot", userId: "u1" });
 * ```
 */
export class MultiPromptOptimizer {
  readonly optimizer: ProcedureOptimizer;
  readonly prompts: readonly PromptSpec[];

  constructor(options: MultiPromptOptimizerOptions) {
    if (!options || typeof options !== "object") throw new InvalidArgumentError("MultiPromptOptimizer needs { optimizer, prompts }");
    for (const k of Object.keys(options)) if (k !== "optimizer" && k !== "prompts") throw new InvalidArgumentError(`MultiPromptOptimizer has no option ${JSON.stringify(k)}`);
    if (!(options.optimizer instanceof ProcedureOptimizer)) throw new InvalidArgumentError("MultiPromptOptimizer optimizer must be a ProcedureOptimizer");
    if (!Array.isArray(options.prompts) || options.prompts.length === 0) throw new InvalidArgumentError("MultiPromptOptimizer prompts must be a non-empty array of { name, updateInstructions?, whenToUpdate? }");
    const seen = new Set<string>();
    for (const p of options.prompts) {
      if (!p || typeof p !== "object") throw new InvalidArgumentError(`MultiPromptOptimizer prompts must be objects, got ${JSON.stringify(p)}`);
      for (const k of Object.keys(p)) if (!["name", "updateInstructions", "whenToUpdate"].includes(k)) throw new InvalidArgumentError(`a prompt has no field ${JSON.stringify(k)}`);
      procedureLocation({ agentId: "check", name: p.name });
      for (const k of ["updateInstructions", "whenToUpdate"] as const) {
        if (p[k] !== undefined && (typeof p[k] !== "string" || p[k]!.length > 2000)) throw new InvalidArgumentError(`prompt ${p.name}: ${k} must be a string of at most 2000 characters`);
      }
      if (seen.has(p.name)) throw new InvalidArgumentError(`MultiPromptOptimizer prompts has ${JSON.stringify(p.name)} twice`);
      seen.add(p.name);
    }
    this.optimizer = options.optimizer;
    this.prompts = options.prompts.map((p) => ({ ...p }));
  }

  /** Attributes the scope's pending feedback to prompts and updates those prompts. */
  async learn(store: BaseStore, target: MultiLearnTarget): Promise<MultiLearnResult> {
    const real = underlyingStore(store);
    const scope = scopeOf({ agentId: target?.agentId, ...(target?.userId === undefined ? {} : { userId: target.userId }) });
    const o = this.optimizer.options;
    const includeUsers = scope.userId === undefined && target.includeUserFeedback === true;
    if (scope.userId === undefined) checkAgentWide(o, scope.agentId, includeUsers);
    const feedback = await pendingFeedback(o, real, scope, includeUsers);
    const out: MultiLearnResult = { attribution: [], results: {}, pendingIds: [] };
    if (feedback.length === 0) return out;
    const names = this.prompts.map((p) => p.name);
    const assigned = new Map<FeedbackRecord, Set<string>>();
    const by = new Map<FeedbackRecord, MultiLearnResult["attribution"][number]["by"]>();
    const open: FeedbackRecord[] = [];
    for (const f of feedback) {
      const direct = f.prompt !== undefined && names.includes(f.prompt) ? f.prompt : names.length === 1 ? names[0] : undefined;
      if (direct === undefined) open.push(f);
      else {
        assigned.set(f, new Set([direct]));
        by.set(f, names.length === 1 ? "single prompt" : "caller");
      }
    }
    if (open.length) {
      const meter = new CostMeter(o.model, 2, o.maxCharsPerRun);
      const current = await Promise.all(this.prompts.map(async (spec) => ({ spec, instructions: (await getProcedure(real, { ...scope, name: spec.name }))?.instructions ?? "" })));
      const found = await attribute(meter, current, open.map(asTrajectory), o.maxReplyChars);
      out.attributionCost = meter.cost;
      if (!found) o.logger.warn(`procedure optimizer: could not parse which prompts ${open.length} feedback record(s) concern; they stay pending`);
      open.forEach((f, i) => {
        if (!found || !found.shown.includes(i + 1)) return; // stays pending
        assigned.set(f, found.map.get(i + 1) ?? new Set());
        by.set(f, "model");
      });
    }
    const outcomes = new Map<FeedbackRecord, (FeedbackOutcome | "pending")[]>();
    for (const f of assigned.keys()) outcomes.set(f, []);
    for (const spec of this.prompts) {
      const mine = feedback.filter((f) => assigned.get(f)?.has(spec.name));
      if (mine.length === 0) continue;
      const guidance = { ...(spec.updateInstructions ? { updateInstructions: spec.updateInstructions } : {}), ...(spec.whenToUpdate ? { whenToUpdate: spec.whenToUpdate } : {}) };
      const promptScope: ProcedureScope = { ...scope, name: spec.name };
      try {
        const { result, outcome } = await learnOnce(o, real, { scope: promptScope, feedback: mine, trajectories: mine.map(asTrajectory), guidance });
        out.results[spec.name] = result;
        for (const f of mine) outcomes.get(f)!.push(outcome ?? "pending");
      } catch (err) {
        for (const f of mine) outcomes.get(f)!.push("pending");
        o.logger.warn(`procedure optimizer: the run for prompt ${JSON.stringify(spec.name)} failed; its feedback stays pending`, err);
      }
    }
    const settled: [FeedbackRecord, FeedbackOutcome[]][] = [];
    for (const f of feedback) {
      const list = outcomes.get(f);
      if (assigned.has(f)) out.attribution.push({ feedbackId: f.id, prompts: [...assigned.get(f)!], by: by.get(f)! });
      if (!list || list.includes("pending")) {
        out.pendingIds.push(f.id);
        continue;
      }
      // Concerns no prompt (praise, something no prompt covers): used, nothing changed.
      settled.push([f, list.length ? (list as FeedbackOutcome[]) : [{ version: 0, changed: false }]]);
    }
    await markEach(real, settled);
    await retireUsed(o, real, scope, names);
    return out;
  }
}
