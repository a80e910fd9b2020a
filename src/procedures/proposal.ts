import { InvalidArgumentError, ProcedureChangeRejectedError } from "../errors.js";
import { CostMeter, type OptimizerCost } from "./cost.js";
import { lineDiff, type LineDiff } from "./diff.js";
import { checkChange, unsafeAdditionReason } from "./limits.js";
import type { ResolvedOptimizerOptions } from "./optimizer-options.js";
import type { ParsedProposal } from "./parse.js";
import type { PromptGuidance, Trajectory } from "./render.js";
import { askSmaller, runGradient, runRewrite, type OptimizerStrategy, type StrategyResult } from "./strategies.js";

/** Why a proposal was not applied. */
export type ProposalRejection = ProcedureChangeRejectedError["reason"] | "unparseable";

/** Updated instructions proposed by the optimizer, for review. */
export interface ProcedureProposal {
  strategy: OptimizerStrategy;
  /** The prompt's name. */
  name?: string;
  /** The instructions the proposal starts from. */
  before: string;
  /** The proposed instructions (equal to `before` when nothing changes or the proposal was refused). */
  instructions: string;
  /** The model's short rationale. */
  rationale: string;
  /** Whether the proposal changes anything. */
  changed: boolean;
  /** The line diff from `before` (for a refused proposal: to what was proposed). */
  diff: LineDiff;
  /** The gradient strategy's review. */
  critique?: { critique: string; recommendations: string[] };
  /** What the run cost. */
  cost: OptimizerCost;
  /** Set when the proposal was refused: which rule, and why. */
  rejected?: { reason: ProposalRejection; message: string };
  /** For a proposal refused as too large: the proposed text, for a person to review. */
  proposed?: string;
  /** Set when the first proposal broke a limit and the model was asked again (for a smaller change, or to keep dropped lines). */
  revisedFor?: "diff_too_large" | "removes_lines";
}

/** Input of {@link proposeChange}. */
export interface ProposeInput {
  instructions: string;
  trajectories: readonly Trajectory[];
  /** The prompt's update guidance. @default undefined */
  guidance?: PromptGuidance;
  /** The prompt's name, kept on the proposal. @default undefined */
  name?: string;
}

function run(o: ResolvedOptimizerOptions, meter: CostMeter, input: ProposeInput): Promise<StrategyResult> {
  const args = { meter, instructions: input.instructions, trajectories: input.trajectories, prompts: o.prompts, maxReplyChars: o.maxReplyChars, ...(input.guidance ? { guidance: input.guidance } : {}) };
  return o.strategy === "gradient" ? runGradient(args) : runRewrite(args, o.strategy);
}

/**
 * One proposal: runs the strategy, then checks the result against the
 * limits and the unsafe-text rules. A change over `maxChangedLines` is asked
 * once more for a smaller change (while the budget allows).
 */
export async function proposeChange(o: ResolvedOptimizerOptions, input: ProposeInput): Promise<ProcedureProposal> {
  const before = input?.instructions ?? "";
  if (typeof before !== "string") throw new InvalidArgumentError("propose needs { instructions: string, trajectories }");
  if (!Array.isArray(input.trajectories)) throw new InvalidArgumentError("propose needs { trajectories: [...] }");
  const meter = new CostMeter(o.model, o.maxCallsPerRun, o.maxCharsPerRun);
  const result = await run(o, meter, input);
  const base = {
    strategy: o.strategy,
    ...(input.name === undefined ? {} : { name: input.name }),
    before,
    cost: meter.cost,
    ...(result.critique ? { critique: { critique: result.critique.critique, recommendations: result.critique.recommendations } } : {}),
  };
  const unchanged = (rationale: string, rejected?: ProcedureProposal["rejected"]): ProcedureProposal => ({
    ...base, instructions: before, rationale, changed: false, diff: lineDiff(before, before), ...(rejected ? { rejected } : {}),
  });
  let proposal: ParsedProposal | undefined = result.proposal;
  if (!proposal) {
    o.logger.warn(`procedure optimizer: could not parse the model's proposal (${o.strategy}); nothing changed, the feedback stays pending`);
    return unchanged("", { reason: "unparseable", message: "the model's reply held no instructions" });
  }
  let revisedFor: ProcedureProposal["revisedFor"];
  const revised = () => (revisedFor ? { revisedFor } : {});
  for (let asked = false; ; asked = true) {
    const { instructions, rationale } = proposal;
    if (instructions === before || instructions.trim() === before.trim()) return { ...unchanged(rationale), ...revised() };
    let diff: LineDiff;
    try {
      diff = checkChange(before, instructions, o.limits);
    } catch (err) {
      if (!(err instanceof ProcedureChangeRejectedError)) throw err;
      const full = lineDiff(before, instructions);
      if ((err.reason === "diff_too_large" || err.reason === "removes_lines") && !asked && result.request) {
        const removed = err.reason === "removes_lines" ? full.lines.filter((l) => l.op === "-").map((l) => l.text) : undefined;
        const max = removed ? o.limits.maxRemovedLines : o.limits.maxChangedLines;
        const smaller = await askSmaller({ meter, maxReplyChars: o.maxReplyChars }, result.request, full.added + full.removed, max, removed);
        if (smaller) {
          proposal = smaller;
          revisedFor = err.reason;
          continue;
        }
      }
      return { ...unchanged(rationale, { reason: err.reason, message: err.message }), diff: full, proposed: instructions, ...revised() };
    }
    if (o.rejectUnsafe) {
      const unsafe = unsafeAdditionReason(diff);
      if (unsafe) return { ...unchanged(rationale, { reason: "unsafe", message: `proposal refused: ${unsafe}` }), diff, ...revised() };
    }
    return { ...base, instructions, rationale, changed: true, diff, ...revised() };
  }
}
