import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { ProcedureChangeRejectedError } from "../errors.js";
import { listFeedback, markFeedback, retireFeedback, type FeedbackOutcome, type FeedbackRecord, type FeedbackStatus } from "./feedback.js";
import { procedureHistory } from "./history.js";
import { listProcedureUsers } from "./list.js";
import type { ResolvedOptimizerOptions } from "./optimizer-options.js";
import { proposeChange, type ProcedureProposal } from "./proposal.js";
import type { PromptGuidance, Trajectory } from "./render.js";
import { getProcedure, setProcedure } from "./store.js";
import { DEFAULT_PROCEDURE_NAME, type ProcedureRecord, type ProcedureScope } from "./types.js";

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
  /**
   * What became of them: `pending` (kept for the next run: unparseable
   * reply, a concurrent change), `review` (too large: kept for a person),
   * or the status they were given. Feedback is never dropped unread.
   * @default undefined when there was no feedback
   */
  feedbackStatus?: FeedbackStatus;
}

export const asTrajectory = (f: FeedbackRecord): Trajectory => ({
  id: f.id,
  messages: f.messages.map((m) => ({ role: m.role, content: m.text })),
  feedback: { score: f.score, comment: f.comment, correction: f.correction },
});

/**
 * Refuses, before anything is read, an agent-wide run the policy does not
 * allow: any with `"deny"`, and one that would apply end users' feedback to
 * every user with `"allow"` unless the loud opt-out is set.
 */
export function checkAgentWide(o: ResolvedOptimizerOptions, agentId: string, includeUserFeedback: boolean): void {
  if (o.agentWide === "deny") {
    throw new ProcedureChangeRejectedError(
      `agent-wide instructions of ${JSON.stringify(agentId)} can change only with the optimizer's agentWide policy ("allow" or an approval function); ` +
        "learn per user (pass userId) for user feedback",
      "not_approved",
    );
  }
  if (o.agentWide === "allow" && includeUserFeedback && !o.applyUserFeedbackToEveryUserWithoutReview) {
    throw new ProcedureChangeRejectedError(
      `learning ${JSON.stringify(agentId)}'s agent-wide instructions from end users' feedback would let one user's words reach every user with no review: ` +
        "give agentWide an approval function, or set applyUserFeedbackToEveryUserWithoutReview: true to accept that risk",
      "not_approved",
    );
  }
}

/** Pending feedback of a scope, oldest first, at most `maxFeedbackPerRun` (every user's too with `everyUser`). */
export async function pendingFeedback(o: ResolvedOptimizerOptions, store: BaseStore, scope: ProcedureScope, everyUser: boolean): Promise<FeedbackRecord[]> {
  const limit = o.maxFeedbackPerRun;
  const own = await listFeedback(store, { agentId: scope.agentId, ...(scope.userId === undefined ? {} : { userId: scope.userId }), limit });
  if (!everyUser) return own.reverse(); // oldest first: the newest is kept when the budget is short
  const all = [...own];
  // Read no more than the run can use: each user's namespace is asked for what is still missing.
  for (const userId of await listProcedureUsers(store, scope.agentId, "feedback")) {
    if (all.length >= limit) break;
    all.push(...(await listFeedback(store, { agentId: scope.agentId, userId, limit: limit - all.length })));
  }
  return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit).reverse();
}

/** One scope's run over given feedback: propose, check the policy, apply with compare-and-set, say what the feedback becomes. */
export interface LearnOnceInput {
  scope: ProcedureScope;
  feedback: readonly FeedbackRecord[];
  trajectories: readonly Trajectory[];
  guidance?: PromptGuidance;
}

/** Proposes and applies; returns the result and what the feedback should become (undefined: stays pending). */
export async function learnOnce(o: ResolvedOptimizerOptions, store: BaseStore, input: LearnOnceInput): Promise<{ result: LearnResult; outcome?: FeedbackOutcome }> {
  const { scope, feedback } = input;
  const name = scope.name ?? DEFAULT_PROCEDURE_NAME;
  const feedbackIds = feedback.map((f) => f.id);
  const current = await getProcedure(store, scope);
  if (input.trajectories.length === 0) return { result: { applied: false, ...(current ? { record: current } : {}), feedbackIds } };
  const proposal = await proposeChange(o, { instructions: current?.instructions ?? "", trajectories: input.trajectories, name, ...(input.guidance ? { guidance: input.guidance } : {}) });
  const done = (applied: boolean, record: ProcedureRecord | undefined, status: FeedbackStatus, outcome?: FeedbackOutcome) => ({
    result: { proposal, applied, ...(record ? { record } : {}), feedbackIds, ...(feedback.length ? { feedbackStatus: status } : {}) },
    ...(outcome ? { outcome } : {}),
  });
  if (proposal.rejected) {
    const { reason, message } = proposal.rejected;
    o.logger.warn(`procedure optimizer: proposal for ${JSON.stringify(scope)} refused (${reason}): ${message}`);
    if (reason === "diff_too_large" || reason === "too_long" || reason === "removes_lines") {
      if (feedback.length) await o.onReview?.(proposal, scope, feedback);
      return done(false, current, "review", {
        review: { reason, message, proposed: proposal.proposed ?? "", name, baseVersion: current?.version ?? 0, agentWide: scope.userId === undefined },
      });
    }
    if (reason === "unsafe" || reason === "not_approved") return done(false, current, "rejected", { rejected: reason });
    return done(false, current, "pending"); // unparseable or empty: tried again next run
  }
  if (!proposal.changed) return done(false, current, "used", { version: current?.version ?? 0, name, changed: false });
  if (scope.userId === undefined && typeof o.agentWide === "function" && !(await o.agentWide(proposal, scope))) {
    proposal.rejected = { reason: "not_approved", message: "the agentWide approval hook refused the proposal" };
    return done(false, current, "rejected", { rejected: "not_approved" });
  }
  try {
    const change = await setProcedure(store, scope, {
      instructions: proposal.instructions,
      reason: proposal.rationale || `learned from ${input.trajectories.length} conversation(s)`,
      source: `optimizer:${o.strategy}`,
      feedbackIds,
      expectedVersion: current?.version ?? 0,
      limits: o.limits,
    });
    return done(change.changed, change.record, change.changed ? "applied" : "used", { version: change.record.version, name, changed: change.changed });
  } catch (err) {
    if (err instanceof ProcedureChangeRejectedError && err.reason === "conflict") {
      // Someone else changed the instructions meanwhile: the feedback stays pending for the next run.
      proposal.rejected = { reason: "conflict", message: err.message };
      return done(false, await getProcedure(store, scope), "pending");
    }
    throw err;
  }
}

/** Marks the feedback with its outcome (nothing when it stays pending). */
export async function settleFeedback(store: BaseStore, feedback: readonly FeedbackRecord[], outcome: FeedbackOutcome | undefined): Promise<void> {
  if (outcome && feedback.length) await markFeedback(store, feedback, outcome);
}

/** Deletes the scope's used feedback that no kept version of `names` needs (a bounded pass per run). */
export async function retireUsed(o: ResolvedOptimizerOptions, store: BaseStore, scope: ProcedureScope, names: readonly string[]): Promise<void> {
  const kept = new Map<string, Set<number>>();
  for (const name of names) kept.set(name, new Set((await procedureHistory(store, { ...scope, name })).map((r) => r.version)));
  await retireFeedback(store, scope, { keptVersions: kept, olderThanDays: o.retainUsedFeedbackDays, limit: 100 });
}
