import { OptimizerBudgetError } from "../errors.js";
import type { CostMeter } from "./cost.js";
import { parseCritiqueReply, parseProposalReply, type ParsedCritique, type ParsedProposal } from "./parse.js";
import { GRADIENT_CRITIQUE_PROMPT, GRADIENT_EDIT_PROMPT, METAPROMPT_PROMPT, PROMPT_MEMORY_PROMPT, PROPOSAL_FORMAT_PROMPT, SMALLER_CHANGE_PROMPT, KEEP_LINES_PROMPT } from "./prompts.js";
import { fitTrajectories, renderGuidance, renderInstructions, type PromptGuidance, type Trajectory } from "./render.js";

/**
 * How the optimizer turns conversations into instructions: `metaprompt` (one
 * rewrite call from feedback), `gradient` (a critique call, then an edit
 * call), `prompt_memory` (one call that learns from the conversations alone,
 * feedback or not).
 */
export type OptimizerStrategy = "metaprompt" | "gradient" | "prompt_memory";

/** Every strategy, for validation. */
export const OPTIMIZER_STRATEGIES: readonly OptimizerStrategy[] = ["metaprompt", "gradient", "prompt_memory"];

/** The prompts a strategy uses (see prompts.ts for the defaults). */
export interface OptimizerPrompts {
  /** @default METAPROMPT_PROMPT */
  metaprompt?: string;
  /** @default GRADIENT_CRITIQUE_PROMPT */
  critique?: string;
  /** @default GRADIENT_EDIT_PROMPT */
  edit?: string;
  /** @default PROMPT_MEMORY_PROMPT */
  promptMemory?: string;
}

/** The keys of {@link OptimizerPrompts}. */
export const OPTIMIZER_PROMPT_KEYS: readonly (keyof OptimizerPrompts)[] = ["metaprompt", "critique", "edit", "promptMemory"];


/** Longest review passed from the critique to the edit step. */
export const MAX_CRITIQUE_CHARS = 3000;

interface RunArgs {
  meter: CostMeter;
  instructions: string;
  trajectories: readonly Trajectory[];
  prompts: OptimizerPrompts;
  maxReplyChars: number;
  guidance?: PromptGuidance;
}

/** The current instructions, then the prompt's guidance, for the model's input. */
const head = (args: RunArgs) => [renderInstructions(args.instructions), renderGuidance(args.guidance)].filter(Boolean).join("\n");

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

/** What a strategy sent for its proposal, so that a smaller change can be asked for with the same input. */
export interface StrategyResult {
  proposal?: ParsedProposal;
  critique?: ParsedCritique;
  /** The system and user messages of the call that made the proposal. */
  request?: { system: string; user: string };
}

/** `metaprompt` (from feedback) and `prompt_memory` (from the conversations): one call rewrites the instructions. */
export async function runRewrite(args: RunArgs, kind: "metaprompt" | "prompt_memory"): Promise<StrategyResult> {
  const prompt = kind === "metaprompt" ? (args.prompts.metaprompt ?? METAPROMPT_PROMPT) : (args.prompts.promptMemory ?? PROMPT_MEMORY_PROMPT);
  const system = `${prompt}\n\n${PROPOSAL_FORMAT_PROMPT}`;
  const top = head(args);
  const user = `${top}\n\n${conversations(args, system.length + top.length + 2)}`;
  return { proposal: await ask(args.meter, system, user, (r) => parseProposalReply(r, args.maxReplyChars)), request: { system, user } };
}

/**
 * Asks once more, with the same input, for a change of at most `max` lines
 * (after a proposal changed `changed`); undefined when the budget cannot
 * afford the call or the reply is unparseable.
 */
export async function askSmaller(args: { meter: CostMeter; maxReplyChars: number }, request: { system: string; user: string }, changed: number, max: number, removed?: readonly string[]): Promise<ParsedProposal | undefined> {
  const note = removed
    ? KEEP_LINES_PROMPT.replace("{lines}", removed.map((l) => `- ${l}`).join("\n")).replace("{max}", String(max))
    : SMALLER_CHANGE_PROMPT.replace("{changed}", String(changed)).replace("{max}", String(max));
  const user = `${request.user}\n\n${note}`;
  if (!args.meter.canAfford(request.system.length + user.length)) return undefined;
  return parseProposalReply(await args.meter.call(request.system, user), args.maxReplyChars);
}

/**
 * `gradient`: a critique call reviews the behaviour against the feedback and
 * recommends changes; an edit call applies them to the instructions (it sees
 * the review, not the conversations). No change needed: one call.
 */
export async function runGradient(args: RunArgs): Promise<StrategyResult> {
  const critiqueSystem = args.prompts.critique ?? GRADIENT_CRITIQUE_PROMPT;
  const editSystem = `${args.prompts.edit ?? GRADIENT_EDIT_PROMPT}\n\n${PROPOSAL_FORMAT_PROMPT}`;
  const top = head(args);
  // Reserve the edit call: its prompt, the instructions and the longest review.
  const reserve = editSystem.length + top.length + MAX_CRITIQUE_CHARS + 64;
  const user = `${top}\n\n${conversations(args, critiqueSystem.length + top.length + 2 + reserve)}`;
  const critique = await ask(args.meter, critiqueSystem, user, (r) => parseCritiqueReply(r, args.maxReplyChars));
  if (!critique) return {};
  if (!critique.changeNeeded) return { critique, proposal: { instructions: args.instructions, rationale: critique.critique || "no change needed" } };
  const review = critique.critique.slice(0, MAX_CRITIQUE_CHARS);
  const recs = critique.recommendations.map((r) => `- ${r}`).join("\n").slice(0, Math.max(0, MAX_CRITIQUE_CHARS - review.length));
  let editUser = `${top}\n\n<review>\n${review}\n</review>\n<recommendations>\n${recs || "- (see the review)"}\n</recommendations>`;
  // A review with no recommendations (prose) says too little alone: the edit step also sees the conversations, when the budget allows.
  const withConversations = `${editUser}\n\n${user.slice(top.length + 2)}`;
  if (!recs && args.meter.canAfford(editSystem.length + withConversations.length)) editUser = withConversations;
  const proposal = await ask(args.meter, editSystem, editUser, (r) => parseProposalReply(r, args.maxReplyChars));
  return { critique, ...(proposal ? { proposal } : {}), request: { system: editSystem, user: editUser } };
}
