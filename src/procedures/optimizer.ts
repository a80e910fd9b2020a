import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { DebouncedScheduler, type BackgroundFailure } from "../scope/background-runs.js";
import { underlyingStore } from "../scope/resolve-store.js";
import { asTrajectory, checkAgentWide, learnOnce, pendingFeedback, retireUsed, settleFeedback, type LearnResult } from "./learn-run.js";
import type { ProcedureLimits } from "./limits.js";
import { resolveOptimizerOptions, type ProcedureOptimizerOptions, type ResolvedOptimizerOptions } from "./optimizer-options.js";
import { proposeChange, type ProcedureProposal, type ProposeInput } from "./proposal.js";
import type { PromptGuidance, Trajectory } from "./render.js";
import { procedureLocation } from "./store.js";
import type { OptimizerStrategy } from "./strategies.js";
import { DEFAULT_PROCEDURE_NAME, type ProcedureScope } from "./types.js";

export type { ProcedureApprovalHook, ProcedureOptimizerOptions, ProcedureReviewHook } from "./optimizer-options.js";
export type { ProcedureProposal, ProposalRejection } from "./proposal.js";
export type { LearnResult } from "./learn-run.js";

/** What to learn: a scope, and optionally the trajectories (else its pending feedback). */
export interface LearnTarget extends ProcedureScope, PromptGuidance {
  /**
   * Learn from these instead of the scope's pending feedback.
   * @default undefined (the pending feedback)
   */
  trajectories?: Trajectory[];
  /**
   * Agent-wide runs only: learn from every user's pending feedback too (each
   * run still needs the `agentWide` policy; with `"allow"` also the opt-out
   * `applyUserFeedbackToEveryUserWithoutReview`).
   * @default false
   */
  includeUserFeedback?: boolean;
}

/** The scope part of a target, validated. */
export function scopeOf(target: ProcedureScope): ProcedureScope {
  if (!target || typeof target !== "object") throw new InvalidArgumentError("a learn target needs { agentId, userId?, name? }");
  const scope: ProcedureScope = { agentId: target.agentId, ...(target.userId === undefined ? {} : { userId: target.userId }), ...(target.name === undefined ? {} : { name: target.name }) };
  procedureLocation(scope); // validates before anything is read
  return scope;
}

function checkTarget(target: LearnTarget): void {
  for (const k of ["updateInstructions", "whenToUpdate"] as const) {
    const v = target[k];
    if (v !== undefined && (typeof v !== "string" || v.length > 2000)) throw new InvalidArgumentError(`${k} must be a string of at most 2000 characters, got ${typeof v}`);
  }
  if (target.includeUserFeedback !== undefined && typeof target.includeUserFeedback !== "boolean") {
    throw new InvalidArgumentError(`includeUserFeedback must be true or false, got ${JSON.stringify(target.includeUserFeedback)}`);
  }
  if (target.trajectories !== undefined && !Array.isArray(target.trajectories)) throw new InvalidArgumentError("trajectories must be an array");
}

const guidanceOf = (t: PromptGuidance): PromptGuidance | undefined =>
  t.updateInstructions || t.whenToUpdate ? { ...(t.updateInstructions ? { updateInstructions: t.updateInstructions } : {}), ...(t.whenToUpdate ? { whenToUpdate: t.whenToUpdate } : {}) } : undefined;

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
  /** The options with every default applied. */
  readonly options: Readonly<ResolvedOptimizerOptions>;
  private readonly scheduler: DebouncedScheduler<LearnResult>;
  private readonly storeIds = new WeakMap<BaseStore, number>();

  constructor(options: ProcedureOptimizerOptions) {
    const o = resolveOptimizerOptions(options);
    this.options = o;
    this.strategy = o.strategy;
    this.maxCallsPerRun = o.maxCallsPerRun;
    this.maxCharsPerRun = o.maxCharsPerRun;
    this.limits = o.limits;
    this.scheduler = new DebouncedScheduler({
      attempts: o.maxAttempts,
      retryDelayMs: o.retryDelaySeconds * 1000,
      logger: o.logger,
      what: "procedure optimizer: background run",
      afterFailure: "its feedback stays pending for the next run",
      storeClosed: (key) => `procedure optimizer: the background run for ${key} could not run because its store was closed; its feedback stays pending. Call \`await optimizer.flush()\` before \`store.close()\`.`,
    });
  }

  /** Background runs that failed after every retry (also logged); the newest 100. */
  get failures(): readonly BackgroundFailure[] {
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
  propose(input: ProposeInput): Promise<ProcedureProposal> {
    return proposeChange(this.options, input);
  }

  /**
   * Learns from the scope's pending feedback (or `target.trajectories`) and
   * applies the proposal: per user (`userId` set) at once; agent-wide only as
   * the `agentWide` policy allows. Used feedback gets a status so it is not
   * learned twice; feedback whose proposal could not be used (unparseable,
   * a concurrent change) stays pending, and a change too large is kept for
   * review. Inline: model errors are thrown (the feedback stays pending).
   */
  async learn(store: BaseStore, target: LearnTarget): Promise<LearnResult> {
    const real = underlyingStore(store);
    const scope = scopeOf(target);
    checkTarget(target);
    const includeUsers = scope.userId === undefined && target.includeUserFeedback === true;
    if (scope.userId === undefined) checkAgentWide(this.options, scope.agentId, includeUsers && !target.trajectories);
    const feedback = target.trajectories ? [] : await pendingFeedback(this.options, real, scope, includeUsers);
    const trajectories = target.trajectories ?? feedback.map(asTrajectory);
    const guidance = guidanceOf(target);
    const { result, outcome } = await learnOnce(this.options, real, { scope, feedback, trajectories, ...(guidance ? { guidance } : {}) });
    await settleFeedback(real, feedback, outcome);
    if (feedback.length) await retireUsed(this.options, real, scope, [scope.name ?? DEFAULT_PROCEDURE_NAME]);
    return result;
  }

  /**
   * {@link learn} after `delaySeconds` with no newer call for the same store
   * and scope (the shared debounced scheduler: runs for one scope never
   * overlap; failures are retried, then logged). The returned promise never
   * rejects; bad arguments, and an agent-wide target the `agentWide` policy
   * refuses, throw at once.
   */
  learnInBackground(store: BaseStore, target: LearnTarget, options: { delaySeconds: number }): Promise<LearnResult | undefined> {
    const real = underlyingStore(store);
    const scope = scopeOf(target);
    checkTarget(target);
    const { namespace, key } = procedureLocation(scope);
    const delay = options?.delaySeconds;
    if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0) throw new InvalidArgumentError(`delaySeconds must be a number ≥ 0, got ${JSON.stringify(delay)}`);
    if (scope.userId === undefined) checkAgentWide(this.options, scope.agentId, target.includeUserFeedback === true && !target.trajectories);
    let id = this.storeIds.get(real);
    if (id === undefined) this.storeIds.set(real, (id = nextStoreId++));
    return this.scheduler.schedule(`store#${id} ${JSON.stringify(namespace)} ${key}`, delay * 1000, () => this.learn(real, target));
  }

  /** Runs every waiting background run now and resolves when all have settled. */
  flush(): Promise<void> {
    return this.scheduler.flush();
  }
}
