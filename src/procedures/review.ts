import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { checkKnownKeys, checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { InvalidArgumentError, NotFoundError, ProcedureChangeRejectedError, ProcedureConflictError } from "../errors.js";
import { PROCEDURE_FEEDBACK_ROOT, procedureNamespace } from "../scope/procedure-namespace.js";
import { underlyingStore } from "../scope/resolve-store.js";
import { lineDiff, type LineDiff } from "./diff.js";
import { feedbackStatus, listFeedback, markFeedback, type FeedbackRecord, type ReviewedProposal } from "./feedback.js";
import { unsafeAdditionReason, type ProcedureLimits } from "./limits.js";
import { getProcedure, setProcedure, type ProcedureChange } from "./store.js";
import type { ProcedureScope } from "./types.js";

/** Where a feedback record kept for review lives: the agent, the user whose feedback it is (if any), its id. */
export interface ReviewTarget {
  agentId: string;
  /** The user the feedback came from. @default undefined (agent-level feedback) */
  userId?: string;
  /** The feedback record's id (`listReviews`). */
  feedbackId: string;
}

/** A proposal waiting for a person, as {@link listReviews} gives it. */
export interface PendingReview {
  /** The feedback records the proposal was learned from (one run's), oldest first. */
  feedbackIds: string[];
  /** The instructions it would change. */
  scope: ProcedureScope;
  proposal: ReviewedProposal & { at: string };
  /** The current version of those instructions (0: none yet). */
  currentVersion: number;
  /** False when the instructions changed after the proposal was made: apply only with `force`. */
  current: boolean;
  /** The line diff from the current instructions to the proposal. */
  diff: LineDiff;
  /** Why the proposal's added lines look unsafe, if they do: it cannot be applied. */
  unsafe?: string;
}

/** Options of {@link applyReview}. */
export interface ApplyReviewOptions {
  /** Kept with the new version. @default "applied after review: <why it was kept for review>" */
  reason?: string;
  /**
   * Apply even though the instructions changed after the proposal was made
   * (the proposal replaces them whole, so later changes are undone).
   * @default false
   */
  force?: boolean;
  /**
   * Bounds on the change. A person applying a proposal accepts its size, so
   * only `maxChars` applies unless you say otherwise.
   * @default { maxChangedLines: Infinity, maxRemovedLines: Infinity }
   */
  limits?: ProcedureLimits;
}

/** Options of {@link dismissReview}. */
export interface DismissReviewOptions {
  /** Recorded on the feedback (`rejected`). @default "dismissed" */
  reason?: string;
}

const feedbackNamespace = (t: { agentId: string; userId?: string }) => procedureNamespace(t.agentId, t.userId, PROCEDURE_FEEDBACK_ROOT);

function targetScope(record: FeedbackRecord, review: ReviewedProposal): ProcedureScope {
  const userId = review.agentWide ? undefined : record.userId;
  return { agentId: record.agentId, ...(userId === undefined ? {} : { userId }), name: review.name };
}

/** Records of the same run: same namespace, same proposal, kept at the same moment. */
const sameRun = (a: FeedbackRecord, b: FeedbackRecord) => a.review?.at === b.review?.at && a.review?.proposed === b.review?.proposed && a.review?.name === b.review?.name;

async function describe(store: BaseStore, records: FeedbackRecord[]): Promise<PendingReview> {
  const first = records[0]!;
  const proposal = first.review!;
  const scope = targetScope(first, proposal);
  const existing = await getProcedure(store, scope);
  const currentVersion = existing?.version ?? 0;
  const diff = lineDiff(existing?.instructions ?? "", proposal.proposed);
  const unsafe = unsafeAdditionReason(diff);
  return {
    feedbackIds: records.map((r) => r.id),
    scope,
    proposal,
    currentVersion,
    current: proposal.baseVersion === undefined || proposal.baseVersion === currentVersion,
    diff,
    ...(unsafe ? { unsafe } : {}),
  };
}

/** Groups review records by the run that kept them, oldest record first in each. */
function groupRuns(records: FeedbackRecord[]): FeedbackRecord[][] {
  const runs: FeedbackRecord[][] = [];
  for (const r of [...records].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))) {
    const run = runs.find((g) => sameRun(g[0]!, r));
    if (run) run.push(r);
    else runs.push([r]);
  }
  return runs;
}

/**
 * Proposals an optimizer kept for a person (too large to apply on its own),
 * one per run, newest first: what they would change, whether the
 * instructions moved on since, and whether the added text looks unsafe.
 * Reads the agent's feedback, or one user's (`userId`).
 */
export async function listReviews(store: BaseStore, options: { agentId: string; userId?: string; limit?: number }): Promise<PendingReview[]> {
  const records = await listFeedback(store, { agentId: options.agentId, ...(options.userId === undefined ? {} : { userId: options.userId }), status: "review", limit: options.limit ?? 100 });
  const runs = groupRuns(records.filter((r) => r.review));
  const out = await Promise.all(runs.map((run) => describe(store, run)));
  return out.sort((a, b) => b.proposal.at.localeCompare(a.proposal.at));
}

/** The review record a target names, and the other records of its run. */
async function reviewRun(store: BaseStore, target: ReviewTarget): Promise<FeedbackRecord[]> {
  if (!target || typeof target.agentId !== "string" || target.agentId === "") throw new InvalidArgumentError("a review target needs an agentId");
  if (typeof target.feedbackId !== "string" || target.feedbackId === "") throw new InvalidArgumentError("a review target needs a feedbackId");
  const item = await underlyingStore(store).get(feedbackNamespace(target), target.feedbackId);
  const record = item?.value as unknown as FeedbackRecord | undefined;
  if (!record || typeof record.id !== "string") throw new NotFoundError(`no feedback ${JSON.stringify(target.feedbackId)} for this agent${target.userId === undefined ? "" : " and user"}`);
  const status = feedbackStatus(record);
  if (status !== "review" || !record.review) throw new InvalidArgumentError(`feedback ${JSON.stringify(record.id)} is ${status}, not waiting for review`);
  const all = await listFeedback(store, { agentId: record.agentId, ...(record.userId === undefined ? {} : { userId: record.userId }), status: "review", limit: 100 });
  const run = all.filter((r) => r.id !== record.id && sameRun(r, record));
  return [record, ...run];
}

/**
 * Applies a proposal kept for review, as a person's decision: the proposed
 * text becomes a new version (`source: "review"`, with the run's feedback
 * ids), and the run's feedback is marked `applied`. Refused with
 * {@link ProcedureConflictError} when the instructions changed after the
 * proposal was made (pass `force` to replace them anyway), and with
 * {@link ProcedureChangeRejectedError} (`unsafe`) when the added lines look
 * unsafe, as the optimizer would have refused them.
 *
 * @example
 * ```ts
 * const [pending] = await listReviews(store, { agentId: "support-bot", userId: "u1" });
 * await applyReview(store, { agentId: "support-bot", userId: "u1", feedbackId: pending.feedbackIds[0] });
 * ```
 */
export async function applyReview(store: BaseStore, target: ReviewTarget, options: ApplyReviewOptions = {}): Promise<ProcedureChange & { feedbackIds: string[] }> {
  checkOptions(options, "applyReview options", OPTION_KEYS.applyReview);
  checkKnownKeys(options.limits, OPTION_KEYS.procedureLimits, "limits.");
  if (options.force !== undefined && typeof options.force !== "boolean") throw new InvalidArgumentError(`force must be a boolean, got ${JSON.stringify(options.force)}`);
  if (options.reason !== undefined && typeof options.reason !== "string") throw new InvalidArgumentError("reason must be a string when given");
  const run = await reviewRun(store, target);
  const review = await describe(store, run);
  if (review.unsafe) throw new ProcedureChangeRejectedError(`the proposal was not applied: ${review.unsafe}`, "unsafe");
  if (!review.current && options.force !== true) {
    throw new ProcedureConflictError(
      `the instructions are at version ${review.currentVersion}, and the proposal was made from version ${review.proposal.baseVersion}: ` +
        "applying it would undo the changes since; compare it with the current version, then pass force to apply it anyway",
    );
  }
  const change = await setProcedure(store, review.scope, {
    instructions: review.proposal.proposed,
    reason: options.reason?.trim() || `applied after review: ${review.proposal.reason}`,
    source: "review",
    feedbackIds: review.feedbackIds,
    expectedVersion: review.currentVersion,
    limits: { maxChangedLines: Infinity, maxRemovedLines: Infinity, ...options.limits },
  });
  await markFeedback(store, run, { version: change.record.version, name: review.proposal.name, changed: change.changed });
  return { ...change, feedbackIds: review.feedbackIds };
}

/**
 * Dismisses a proposal kept for review: the run's feedback is marked
 * `rejected` (with `reason`), the instructions stay as they are, and the
 * records are retired like other used feedback.
 */
export async function dismissReview(store: BaseStore, target: ReviewTarget, options: DismissReviewOptions = {}): Promise<{ feedbackIds: string[] }> {
  checkOptions(options, "dismissReview options", OPTION_KEYS.dismissReview);
  if (options.reason !== undefined && (typeof options.reason !== "string" || options.reason.trim() === "")) throw new InvalidArgumentError("reason must be a non-empty string when given");
  const run = await reviewRun(store, target);
  await markFeedback(store, run, { rejected: options.reason?.trim().slice(0, 200) ?? "dismissed" });
  return { feedbackIds: run.map((r) => r.id) };
}
