import { OptimizerBudgetError } from "../errors.js";
import type { CostMeter } from "./cost.js";
import { parseCritiqueReply, parseProposalReply, type ParsedCritique, type ParsedProposal } from "./parse.js";
import { GRADIENT_CRITIQUE_PROMPT, GRADIENT_EDIT_PROMPT, METAPROMPT_PROMPT, PROPOSAL_FORMAT_PROMPT } from "./prompts.js";
import { fitTrajectories, renderInstructions, type Trajectory } from "./render.js";

/** How the optimizer turns feedback into instructions. */
export type OptimizerStrategy = "metaprompt" | "gradient";

/** The prompts a strategy uses (see prompts.ts for the defaults). */
export interface OptimizerPrompts {
  /** @default METAPROMPT_PROMPT */
  metaprompt?: string;
  /** @default GRADIENT_CRITIQUE_PROMPT */
  critique?: string;
  /** @default GRADIENT_EDIT_PROMPT */
  edit?: string;
}

/** What a strategy returns: a proposal (or undefined when no reply could be parsed), and the gradient's review. */
export interface StrategyResult {
  proposal?: ParsedProposal;
  critique?: ParsedCritique;
}

/** Longest review passed from the critique to the edit step. */
export const MAX_CRITIQUE_CHARS = 3000;

interface RunArgs {
  meter: CostMeter;
  instructions: string;
  trajectories: readonly Trajectory[];
  prompts: OptimizerPrompts;
  maxReplyChars: number;
}

/** Fits the trajectories into what the budget leaves after `fixed` characters; throws when not even one fits. */
function conversations(args: RunArgs, fixed: number): string {
  const budget = args.meter.maxChars - fixed;
  if (budget <= 0) {
    throw new OptimizerBudgetError(`the prompts and current instructions alone need ${fixed} characters, over maxCharsPerRun (${args.meter.maxChars})`);
  }
  const fit = fitTrajectories(args.trajectories, budget);
  if (fit.used.length === 0 && args.trajectories.length > 0) {
    throw new OptimizerBudgetError(`not even the newest conversation fits in the ${budget} characters maxCharsPerRun leaves for conversations`);
  }
  args.meter.cost.trajectories = fit.used.length;
  args.meter.cost.droppedTrajectories = fit.dropped;
  return fit.text;
}

/** Calls and parses; asks once more on an unparseable reply while the budget allows. */
async function ask<T>(meter: CostMeter, system: string, user: string, parse: (reply: string) => T | undefined): Promise<T | undefined> {
  const first = parse(await meter.call(system, user));
  if (first !== undefined || !meter.canAfford(system.length + user.length)) return first;
  return parse(await meter.call(system, user));
}

/** `metaprompt`: one call rewrites the instructions from the conversations and their feedback. */
export async function runMetaprompt(args: RunArgs): Promise<StrategyResult> {
  const system = `${args.prompts.metaprompt ?? METAPROMPT_PROMPT}\n\n${PROPOSAL_FORMAT_PROMPT}`;
  const head = renderInstructions(args.instructions);
  const user = `${head}\n\n${conversations(args, system.length + head.length + 2)}`;
  return { proposal: await ask(args.meter, system, user, (r) => parseProposalReply(r, args.maxReplyChars)) };
}

/**
 * `gradient`: a critique call reviews the behaviour against the feedback and
 * recommends changes; an edit call applies them to the instructions (it sees
 * the review, not the conversations). No change needed: one call.
 */
export async function runGradient(args: RunArgs): Promise<StrategyResult> {
  const critiqueSystem = args.prompts.critique ?? GRADIENT_CRITIQUE_PROMPT;
  const editSystem = `${args.prompts.edit ?? GRADIENT_EDIT_PROMPT}\n\n${PROPOSAL_FORMAT_PROMPT}`;
  const head = renderInstructions(args.instructions);
  // Reserve the edit call: its prompt, the instructions and the longest review.
  const reserve = editSystem.length + head.length + MAX_CRITIQUE_CHARS + 64;
  const user = `${head}\n\n${conversations(args, critiqueSystem.length + head.length + 2 + reserve)}`;
  const critique = await ask(args.meter, critiqueSystem, user, (r) => parseCritiqueReply(r, args.maxReplyChars));
  if (!critique) return {};
  if (!critique.changeNeeded) return { critique, proposal: { instructions: args.instructions, rationale: critique.critique || "no change needed" } };
  const review = critique.critique.slice(0, MAX_CRITIQUE_CHARS);
  const recs = critique.recommendations.map((r) => `- ${r}`).join("\n").slice(0, Math.max(0, MAX_CRITIQUE_CHARS - review.length));
  const editUser = `${head}\n\n<review>\n${review}\n</review>\n<recommendations>\n${recs || "- (see the review)"}\n</recommendations>`;
  const proposal = await ask(args.meter, editSystem, editUser, (r) => parseProposalReply(r, args.maxReplyChars));
  return { critique, ...(proposal ? { proposal } : {}) };
}
