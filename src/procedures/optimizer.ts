import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, ProcedureChangeRejectedError } from "../errors.js";
import type { ExtractorLogger } from "../extract/model-call.js";
import { DebouncedScheduler, type ExtractionFailure } from "../extract/scheduler.js";
import { underlyingStore } from "../scope/resolve-store.js";
import { CostMeter, type OptimizerCost } from "./cost.js";
import { lineDiff, type LineDiff } from "./diff.js";
import { listFeedback, markFeedback, type FeedbackRecord } from "./feedback.js";
import { checkOptimizerOptions } from "./optimizer-options.js";
import { checkChange, resolveLimits, unsafeInstructionReason, type ProcedureLimits } from "./limits.js";
import { listProcedureUsers } from "./list.js";
import type { Trajectory } from "./render.js";
import { getProcedure, procedureLocation, setProcedure } from "./store.js";
import { runGradient, runMetaprompt, type OptimizerPrompts, type OptimizerStrategy } from "./strategies.js";
import type { ProcedureRecord, ProcedureScope } from "./types.js";

/** Why a proposal was not applied. */
export type ProposalRejection = ProcedureChangeRejectedError["reason"] | "unparseable";

/** Updated instructions proposed by the optimizer, for review. */
export interface ProcedureProposal {
  strategy: OptimizerStrategy;
  /** The instructions the proposal starts from. */
  before: string;
  /** The proposed instructions (equal to `before` when nothing changes or the proposal was refused). */
  instructions: string;
  /** The model's short rationale. */
  rationale: string;
  /** Whether the proposal changes anything. */
  changed: boolean;
  /** The line diff from `before`. */
  diff: LineDiff;
  /** The gradient strategy's review. */
  critique?: { critique: string; recommendations: string[] };
  /** What the run cost. */
  cost: OptimizerCost;
  /** Set when the proposal was refused: which rule, and why. */
  rejected?: { reason: ProposalRejection; message: string };
}

/** Approves (true) or refuses an agent-wide change, e.g. after a person reviewed `proposal.diff`. */
export type ProcedureApprovalHook = (proposal: ProcedureProposal, scope: ProcedureScope) => boolean | Promise<boolean>;

/** Options of {@link ProcedureOptimizer}. */
export interface ProcedureOptimizerOptions {
  /** Any LangChain chat model. */
  model: BaseChatModel;
  /**
   * `"metaprompt"`: one call rewrites the instructions. `"gradient"`: a
   * critique call, then an edit call that applies its recommendations.
   * @default "metaprompt"
   */
  strategy?: OptimizerStrategy;
  /**
   * Bounds on one change (length, lines changed); a larger proposal is refused.
   * @default DEFAULT_PROCEDURE_LIMITS ({ maxChars: 4000, maxChangedLines: 20 })
   */
  limits?: ProcedureLimits;
  /**
   * Most model calls in one run (an unparseable reply is asked again while
   * the budget allows). At least 1 for metaprompt, 2 for gradient.
   * @default 3
   */
  maxCallsPerRun?: number;
  /**
   * Most prompt characters in one run; the oldest conversations are left out to fit.
   * @default 60000
   */
  maxCharsPerRun?: number;
  /**
   * Who may change the AGENT's own instructions (those every user gets):
   * `"deny"` refuses (`learn` without `userId` throws
   * ProcedureChangeRejectedError `not_approved`); `"allow"` applies them
   * (for feedback from developers or evaluators); a function approves or
   * refuses each proposal, seeing its diff. Per-user changes need no approval.
   * @default "deny"
   */
  agentWide?: "deny" | "allow" | ProcedureApprovalHook;
  /**
   * Refuse proposals whose new lines try to override or leak instructions
   * ("ignore your instructions…") or hold secrets (UNSAFE_INSTRUCTION_PATTERNS).
   * @default true
   */
  rejectUnsafe?: boolean;
  /**
   * Most feedback records one run learns from (the newest).
   * @default 10
   */
  maxFeedbackPerRun?: number;
  /** Replace the default prompts. @default {} */
  prompts?: OptimizerPrompts;
  /** Longest reply that is parsed, in characters. @default 20000 */
  maxReplyChars?: number;
  /** Attempts of a background run before it is logged as failed. @default 3 */
  maxAttempts?: number;
  /** Delay before the first retry of a background run; doubles after each. @default 1 */
  retryDelaySeconds?: number;
  /** Where warnings and failed background runs go. @default console */
  logger?: ExtractorLogger;
}

/** What to learn: a scope, and optionally the trajectories (else its pending feedback). */
export interface LearnTarget extends ProcedureScope {
  /**
   * Learn from these instead of the scope's pending feedback.
   * @default undefined (the pending feedback)
   */
  trajectories?: Trajectory[];
  /**
   * Agent-wide runs only: learn from every user's pending feedback too (each
   * run still needs the `agentWide` policy).
   * @default false
   */
  includeUserFeedback?: boolean;
}

/** What {@link ProcedureOptimizer.learn} did. */
export interface LearnResult {
  /** The proposal, or undefined when there was nothing to learn from. */
  proposal?: ProcedureProposal;
  /** Whether a new version was written. */
  applied: boolean;
  /** The current version after the run. */
  record?: ProcedureRecord;
  /** The feedback records the run used. */
  feedbackIds: string[];
}

const asTrajectory = (f: FeedbackRecord): Trajectory => ({
  id: f.id,
  messages: f.messages.map((m) => ({ role: m.role, content: m.text })),
  feedback: { score: f.score, comment: f.comment, correction: f.correction },
});

let nextStoreId = 1;

/**
 * Procedural memory's learner: from conversations with feedback and the
 * current instructions, proposes updated instructions with a rationale, and
 * (in `learn`) applies them within bounds, per user by default.
 *
 * @example
 * ```ts
 * const optimizer = new ProcedureOptimizer({ model, strategy: "gradient" });
 * await recordFeedback(store, { agentId: "bot", userId: "u1", threadId: "t1", correction: "use bullet points" });
 * const { applied, proposal } = await optimizer.learn(store, { agentId: "bot", userId: "u1" });
 * console.log(applied, proposal?.diff.text, proposal?.cost);
 * ```
 */
export class ProcedureOptimizer {
  readonly strategy: OptimizerStrategy;
  readonly maxCallsPerRun: number;
  readonly maxCharsPerRun: number;
  readonly limits: Required<ProcedureLimits>;
  private readonly options: ProcedureOptimizerOptions;
  private readonly scheduler: DebouncedScheduler<LearnResult>;
  private readonly storeIds = new WeakMap<BaseStore, number>();

  constructor(options: ProcedureOptimizerOptions) {
    checkOptimizerOptions(options);
    const o = options ?? ({} as ProcedureOptimizerOptions);
    if (!o.model || typeof (o.model as { invoke?: unknown }).invoke !== "function") {
      throw new InvalidArgumentError("ProcedureOptimizer needs `model`: a LangChain chat model");
    }
    this.strategy = o.strategy ?? "metaprompt";
    if (this.strategy !== "metaprompt" && this.strategy !== "gradient") {
      throw new InvalidArgumentError(`ProcedureOptimizer strategy must be "metaprompt" or "gradient", got ${JSON.stringify(o.strategy)}`);
    }
    const int = (name: string, v: number | undefined, dflt: number, min: number) => {
      if (v === undefined) return dflt;
      if (!Number.isInteger(v) || v < min) throw new InvalidArgumentError(`ProcedureOptimizer ${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
      return v;
    };
    this.maxCallsPerRun = int("maxCallsPerRun", o.maxCallsPerRun, 3, this.strategy === "gradient" ? 2 : 1);
    this.maxCharsPerRun = int("maxCharsPerRun", o.maxCharsPerRun, 60_000, 1000);
    int("maxFeedbackPerRun", o.maxFeedbackPerRun, 10, 1);
    int("maxReplyChars", o.maxReplyChars, 20_000, 100);
    const attempts = int("maxAttempts", o.maxAttempts, 3, 1);
    const delay = o.retryDelaySeconds ?? 1;
    if (typeof delay !== "number" || !(delay >= 0)) throw new InvalidArgumentError(`retryDelaySeconds must be a number ≥ 0, got ${JSON.stringify(delay)}`);
    const policy = o.agentWide ?? "deny";
    if (policy !== "deny" && policy !== "allow" && typeof policy !== "function") {
      throw new InvalidArgumentError(`agentWide must be "deny", "allow" or an approval function, got ${JSON.stringify(policy)}`);
    }
    this.limits = resolveLimits(o.limits);
    this.options = o;
    this.scheduler = new DebouncedScheduler({ attempts, retryDelayMs: delay * 1000, logger: o.logger ?? console });
  }

  /** Background runs that failed after every retry (also logged); the newest 100. */
  get failures(): readonly ExtractionFailure[] {
    return this.scheduler.failures;
  }

  /** Background runs waiting or running. */
  get pending(): number {
    return this.scheduler.size;
  }

  /**
   * Proposes updated instructions from `trajectories` (no store involved).
   * A proposal over the limits, or with unsafe new lines, comes back with
   * `rejected` set and `instructions` equal to `before`. Throws
   * OptimizerBudgetError when the run cannot fit its budget, and model errors.
   */
  async propose(input: { instructions: string; trajectories: readonly Trajectory[] }): Promise<ProcedureProposal> {
    const before = input?.instructions ?? "";
    if (typeof before !== "string") throw new InvalidArgumentError("propose needs { instructions: string, trajectories }");
    if (!Array.isArray(input.trajectories)) throw new InvalidArgumentError("propose needs { trajectories: [...] }");
    const meter = new CostMeter(this.options.model, this.maxCallsPerRun, this.maxCharsPerRun);
    const args = { meter, instructions: before, trajectories: input.trajectories, prompts: this.options.prompts ?? {}, maxReplyChars: this.options.maxReplyChars ?? 20_000 };
    const result = this.strategy === "gradient" ? await runGradient(args) : await runMetaprompt(args);
    const base = { strategy: this.strategy, before, cost: meter.cost, ...(result.critique ? { critique: { critique: result.critique.critique, recommendations: result.critique.recommendations } } : {}) };
    const unchanged = (rationale: string, rejected?: ProcedureProposal["rejected"]): ProcedureProposal => ({
      ...base, instructions: before, rationale, changed: false, diff: lineDiff(before, before), ...(rejected ? { rejected } : {}),
    });
    if (!result.proposal) {
      this.logger.warn(`procedure optimizer: could not parse the model's proposal (${this.strategy}); nothing changed`);
      return unchanged("", { reason: "unparseable", message: "the model's reply held no instructions" });
    }
    const { instructions, rationale } = result.proposal;
    if (instructions === before || instructions.trim() === before.trim()) return unchanged(rationale);
    let diff: LineDiff;
    try {
      diff = checkChange(before, instructions, this.limits);
    } catch (err) {
      if (!(err instanceof ProcedureChangeRejectedError)) throw err;
      return { ...unchanged(rationale, { reason: err.reason, message: err.message }), diff: lineDiff(before, instructions) };
    }
    if (this.options.rejectUnsafe ?? true) {
      const added = diff.lines.filter((l) => l.op === "+").map((l) => l.text).join("\n");
      const unsafe = unsafeInstructionReason(added);
      if (unsafe) return { ...unchanged(rationale, { reason: "unsafe", message: `proposal refused: ${unsafe}` }), diff };
    }
    return { ...base, instructions, rationale, changed: true, diff };
  }

  /**
   * Learns from the scope's pending feedback (or `target.trajectories`) and
   * applies the proposal: per user (`userId` set) at once; agent-wide only as
   * the `agentWide` policy allows. Used feedback is marked (applied or
   * refused) so it is not learned twice. Inline: model errors are thrown.
   */
  async learn(store: BaseStore, target: LearnTarget): Promise<LearnResult> {
    const real = underlyingStore(store);
    const scope: ProcedureScope = { agentId: target?.agentId, ...(target?.userId === undefined ? {} : { userId: target.userId }), ...(target?.name === undefined ? {} : { name: target.name }) };
    procedureLocation(scope); // validates before anything is read
    const agentWide = scope.userId === undefined;
    const policy = this.options.agentWide ?? "deny";
    if (agentWide && policy === "deny") {
      throw new ProcedureChangeRejectedError(
        `agent-wide instructions of ${JSON.stringify(scope.agentId)} can change only with the optimizer's agentWide policy ("allow" or an approval function); ` +
          "learn per user (pass userId) for user feedback",
        "not_approved",
      );
    }
    const feedback = target.trajectories ? [] : await this.pendingFeedback(real, scope, agentWide && target.includeUserFeedback === true);
    const trajectories = target.trajectories ?? feedback.map(asTrajectory);
    const feedbackIds = feedback.map((f) => f.id);
    const current = await getProcedure(real, scope);
    if (trajectories.length === 0) return { applied: false, ...(current ? { record: current } : {}), feedbackIds };
    const proposal = await this.propose({ instructions: current?.instructions ?? "", trajectories });
    const done = (applied: boolean, record: ProcedureRecord | undefined): LearnResult => ({ proposal, applied, ...(record ? { record } : {}), feedbackIds });
    if (proposal.rejected) {
      if (proposal.rejected.reason !== "unparseable") await markFeedback(real, feedback, { rejected: proposal.rejected.reason });
      this.logger.warn(`procedure optimizer: proposal for ${JSON.stringify(scope)} refused (${proposal.rejected.reason}): ${proposal.rejected.message}`);
      return done(false, current);
    }
    if (!proposal.changed) {
      await markFeedback(real, feedback, { version: current?.version ?? 0 });
      return done(false, current);
    }
    if (agentWide && typeof policy === "function" && !(await policy(proposal, scope))) {
      proposal.rejected = { reason: "not_approved", message: "the agentWide approval hook refused the proposal" };
      await markFeedback(real, feedback, { rejected: "not_approved" });
      return done(false, current);
    }
    try {
      const change = await setProcedure(real, scope, {
        instructions: proposal.instructions,
        reason: proposal.rationale || `learned from ${trajectories.length} conversation(s) with feedback`,
        source: `optimizer:${this.strategy}`,
        feedbackIds,
        expectedVersion: current?.version ?? 0,
        limits: this.limits,
      });
      await markFeedback(real, feedback, { version: change.record.version });
      return done(change.changed, change.record);
    } catch (err) {
      if (err instanceof ProcedureChangeRejectedError && err.reason === "conflict") {
        // Someone else changed the instructions meanwhile: the feedback stays pending for the next run.
        proposal.rejected = { reason: "conflict", message: err.message };
        return done(false, await getProcedure(real, scope));
      }
      throw err;
    }
  }

  /**
   * {@link learn} after `delaySeconds` with no newer call for the same store
   * and scope (the extractor's debounced scheduler: runs for one scope never
   * overlap; failures are retried, then logged). The returned promise never
   * rejects; bad arguments, and an agent-wide target without the `agentWide`
   * policy, throw at once.
   */
  learnInBackground(store: BaseStore, target: LearnTarget, options: { delaySeconds: number }): Promise<LearnResult | undefined> {
    const real = underlyingStore(store);
    const { namespace, key } = procedureLocation(target);
    const delay = options?.delaySeconds;
    if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0) throw new InvalidArgumentError(`delaySeconds must be a number ≥ 0, got ${JSON.stringify(delay)}`);
    if ((target.userId === undefined) && (this.options.agentWide ?? "deny") === "deny") {
      throw new ProcedureChangeRejectedError(`agent-wide learning for ${JSON.stringify(target.agentId)} needs the agentWide policy`, "not_approved");
    }
    let id = this.storeIds.get(real);
    if (id === undefined) this.storeIds.set(real, (id = nextStoreId++));
    return this.scheduler.schedule(`store#${id} ${JSON.stringify(namespace)} ${key}`, delay * 1000, () => this.learn(real, target));
  }

  /** Runs every waiting background run now and resolves when all have settled. */
  flush(): Promise<void> {
    return this.scheduler.flush();
  }

  private get logger(): ExtractorLogger {
    return this.options.logger ?? console;
  }

  private async pendingFeedback(store: BaseStore, scope: ProcedureScope, everyUser: boolean): Promise<FeedbackRecord[]> {
    const limit = this.options.maxFeedbackPerRun ?? 10;
    const own = await listFeedback(store, { agentId: scope.agentId, ...(scope.userId === undefined ? {} : { userId: scope.userId }), limit });
    if (!everyUser) return own.reverse(); // oldest first: the newest is kept when the budget is short
    const all = [...own];
    for (const userId of await listFeedbackUsers(store, scope.agentId)) all.push(...(await listFeedback(store, { agentId: scope.agentId, userId, limit })));
    return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit).reverse();
  }
}

/** Users with recorded feedback for an agent. */
async function listFeedbackUsers(store: BaseStore, agentId: string): Promise<string[]> {
  return listProcedureUsers(store, agentId, "feedback");
}
