import { randomBytes } from "node:crypto";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { toPlainMessages, type ConversationMessage } from "../extract/messages.js";
import { PROCEDURE_FEEDBACK_ROOT, procedureNamespace } from "../scope/procedure-namespace.js";
import { underlyingStore } from "../scope/resolve-store.js";
import { procedureLocation } from "./store.js";
import { DEFAULT_PROCEDURE_NAME } from "./types.js";

/** Feedback on one thread, for {@link recordFeedback}. */
export interface FeedbackInput {
  /** The agent the feedback is about. */
  agentId: string;
  /** The thread (conversation) it is about. */
  threadId: string;
  /**
   * The user who gave it (or whose conversation it is). User feedback is kept
   * per user, and by default can change only that user's instructions.
   * @default undefined (agent-level feedback, e.g. from a developer or an evaluator)
   */
  userId?: string;
  /** A score, e.g. 0 (bad) to 1 (good). @default undefined */
  score?: number;
  /** A comment on the answer. @default undefined */
  comment?: string;
  /** What the user typed to correct the agent ("no, use bullet points"). @default undefined */
  correction?: string;
  /**
   * The conversation (the trajectory): LangChain messages or `{ role, content }`
   * objects. User and assistant turns are kept, the newest 20, each cut at
   * 2,000 characters. Take them from `graph.getState(config)`.
   * @default [] (the feedback alone)
   */
  messages?: readonly ConversationMessage[];
  /**
   * The named prompt the feedback is about, when the caller knows (an agent
   * with several instructions); a `MultiPromptOptimizer` then skips deciding.
   * @default undefined (the optimizer decides which prompts it concerns)
   */
  prompt?: string;
}

/**
 * Where a feedback record stands: `pending` (not learned from yet),
 * `applied` (it shaped a version: kept as long as that version is),
 * `used` (a run learned from it and changed nothing), `rejected` (a proposal
 * from it broke a rule: unsafe, not approved), `review` (its proposal was
 * too large to apply automatically: kept for a person, see {@link listFeedback}).
 */
export type FeedbackStatus = "pending" | "applied" | "used" | "rejected" | "review";

/** Recorded feedback. */
export interface FeedbackRecord {
  id: string;
  agentId: string;
  userId?: string;
  threadId: string;
  score?: number;
  comment?: string;
  correction?: string;
  /** The trajectory: user and assistant turns. */
  messages: { role: "user" | "assistant"; text: string }[];
  createdAt: string;
  /** The named prompt it is about, when the caller said. */
  prompt?: string;
  /** Where it stands (absent on records written before statuses existed). */
  status?: FeedbackStatus;
  /** The version of the instructions learned from it, once the optimizer used it. */
  appliedInVersion?: number;
  /** Every prompt and version it shaped (a multi-prompt run may change several). */
  appliedIn?: { name: string; version: number }[];
  /** Set when a proposal from it was refused: the rule that refused it. */
  rejected?: string;
  /** Set for `status: "review"`: why, and the proposal a person may apply. */
  review?: ReviewedProposal & { at: string };
  /** When a run last used it. */
  usedAt?: string;
}

/** A proposal kept for a person because it was too large to apply on its own. */
export interface ReviewedProposal {
  /** Why it was not applied (`diff_too_large`, `removes_lines`, `too_long`). */
  reason: string;
  message: string;
  /** The whole proposed text of the instructions. */
  proposed: string;
  /** The named prompt it is for. */
  name: string;
  /** The version it was proposed from (absent on records kept before it was recorded). */
  baseVersion?: number;
  /** True when it is for the agent-wide instructions, not the user's own (absent: the feedback's own scope). */
  agentWide?: boolean;
}

/** Statuses that no optimizer run reads again. */
const USED_STATUSES: readonly FeedbackStatus[] = ["applied", "used", "rejected", "review"];

/** The status of a record, legacy ones included. */
export function feedbackStatus(r: FeedbackRecord): FeedbackStatus {
  if (r.status) return r.status;
  if (r.appliedInVersion !== undefined) return "applied";
  return r.rejected !== undefined ? "rejected" : "pending";
}

const MAX_TEXT = 2000;
const MAX_MESSAGES = 20;

function optionalText(name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw new InvalidArgumentError(`feedback ${name} must be a string, got ${typeof v}`);
  if (v.length > MAX_TEXT) throw new InvalidArgumentError(`feedback ${name} is ${v.length} characters, over ${MAX_TEXT}`);
  return v.trim() || undefined;
}

/**
 * Records feedback on a thread, in `["procedure_feedback", agentId]` or, for
 * a user's feedback, `["procedure_feedback", agentId, userId]` (erased with
 * the user). Recording never changes instructions: a `ProcedureOptimizer`
 * learns from pending feedback when you run it.
 *
 * @example
 * ```ts
 * await recordFeedback(store, { agentId: "support-bot", userId: "u1", threadId: "t1",
 *   correction: "Please always answer with bullet points.", messages });
 * ```
 */
export async function recordFeedback(store: BaseStore, input: FeedbackInput): Promise<FeedbackRecord> {
  return writeFeedback(store, input, false);
}

/**
 * Records a conversation with no feedback on it, for a `ProcedureOptimizer`
 * with `strategy: "prompt_memory"`, which learns how to behave from the
 * conversations alone (what users asked for, explicitly or not). Kept like
 * feedback (per user, erased with the user).
 */
export async function recordConversation(store: BaseStore, input: Omit<FeedbackInput, "score" | "comment" | "correction">): Promise<FeedbackRecord> {
  if (!Array.isArray(input?.messages) || input.messages.length === 0) throw new InvalidArgumentError("recordConversation needs { agentId, threadId, messages: [...] } with at least one message");
  return writeFeedback(store, input, true);
}

async function writeFeedback(store: BaseStore, input: FeedbackInput, conversationOnly: boolean): Promise<FeedbackRecord> {
  if (!input || typeof input !== "object") throw new InvalidArgumentError("recordFeedback needs { agentId, threadId, score | comment | correction }");
  const namespace = procedureNamespace(input.agentId, input.userId, PROCEDURE_FEEDBACK_ROOT);
  if (typeof input.threadId !== "string" || input.threadId === "") throw new InvalidArgumentError(`feedback threadId must be a non-empty string, got ${JSON.stringify(input.threadId)}`);
  if (input.score !== undefined && (typeof input.score !== "number" || !Number.isFinite(input.score))) {
    throw new InvalidArgumentError(`feedback score must be a finite number, got ${JSON.stringify(input.score)}`);
  }
  const comment = optionalText("comment", input.comment);
  const correction = optionalText("correction", input.correction);
  if (input.score === undefined && !comment && !correction && !conversationOnly) throw new InvalidArgumentError("feedback needs a score, a comment or a correction");
  if (input.prompt !== undefined) procedureLocation({ agentId: input.agentId, name: input.prompt });
  if (input.messages !== undefined && !Array.isArray(input.messages)) throw new InvalidArgumentError("feedback messages must be an array");
  const messages = toPlainMessages(input.messages ?? [])
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.text.length > 0)
    .slice(-MAX_MESSAGES)
    .map((m) => ({ role: m.role as "user" | "assistant", text: m.text.slice(0, MAX_TEXT) }));
  const record: FeedbackRecord = {
    id: `fb-${Date.now().toString(36)}-${randomBytes(6).toString("hex")}`,
    agentId: input.agentId,
    ...(input.userId === undefined ? {} : { userId: input.userId }),
    threadId: input.threadId,
    ...(input.score === undefined ? {} : { score: input.score }),
    ...(comment ? { comment } : {}),
    ...(correction ? { correction } : {}),
    messages,
    createdAt: new Date().toISOString(),
    ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
    status: "pending",
  };
  if (conversationOnly && messages.length === 0) throw new InvalidArgumentError("recordConversation needs at least one user or assistant message with text");
  await underlyingStore(store).put(namespace, record.id, record as unknown as Record<string, unknown>, false);
  return record;
}

/** Options of {@link listFeedback}. */
export interface ListFeedbackOptions {
  agentId: string;
  /** The user whose feedback to list. @default undefined (agent-level feedback) */
  userId?: string;
  /**
   * Only feedback no optimizer run has used yet (`status: "pending"`);
   * `false` lists every status.
   * @default true
   */
  pending?: boolean;
  /**
   * Only records with this status (overrides `pending`), e.g. `"review"`:
   * corrections whose proposal was too large to apply on its own.
   * @default undefined (see `pending`)
   */
  status?: FeedbackStatus;
  /** Most records, newest first. @default 20 */
  limit?: number;
}

/** Records one search page reads. */
const PAGE = 100;

/**
 * Recorded feedback of an agent (or of one of its users), newest first.
 * Pending feedback is read through a store filter, so a run reads about
 * `limit` records however much used feedback is kept (records written before
 * statuses existed are given theirs as they are met).
 */
export async function listFeedback(store: BaseStore, options: ListFeedbackOptions): Promise<FeedbackRecord[]> {
  const namespace = procedureNamespace(options.agentId, options.userId, PROCEDURE_FEEDBACK_ROOT);
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError(`limit must be an integer ≥ 1, got ${JSON.stringify(options.limit)}`);
  const status = options.status ?? ((options.pending ?? true) ? "pending" : undefined);
  if (status !== undefined && !["pending", ...USED_STATUSES].includes(status)) throw new InvalidArgumentError(`status must be one of pending, ${USED_STATUSES.join(", ")}, got ${JSON.stringify(status)}`);
  // Pending: records with that status, or none yet (legacy), which are sorted out as met.
  const filter = status === undefined ? undefined : status === "pending" ? { status: { $nin: USED_STATUSES } } : { status };
  const real = underlyingStore(store);
  const out: FeedbackRecord[] = [];
  const legacy: FeedbackRecord[] = [];
  const wanted = status === undefined ? Infinity : limit;
  for (let offset = 0; out.length < wanted; offset += PAGE) {
    const page = await real.search(namespace, { limit: PAGE, offset, ...(filter ? { filter } : {}) });
    for (const item of page) {
      if (item.namespace.length !== namespace.length) continue;
      const r = item.value as unknown as FeedbackRecord;
      if (typeof r?.id !== "string") continue;
      const actual = feedbackStatus(r);
      if (r.status === undefined && actual !== "pending") legacy.push({ ...r, status: actual });
      if (status === undefined || actual === status) out.push(r);
    }
    if (page.length < PAGE) break;
  }
  if (legacy.length) await writeRecords(real, legacy);
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).slice(0, limit);
}

async function writeRecords(store: BaseStore, records: readonly FeedbackRecord[]): Promise<void> {
  if (records.length === 0) return;
  await underlyingStore(store).batch(
    records.map((r) => ({
      namespace: procedureNamespace(r.agentId, r.userId, PROCEDURE_FEEDBACK_ROOT),
      key: r.id,
      value: r as unknown as Record<string, unknown>,
      index: false as const,
    })),
  );
}

/** What became of feedback a run used. */
export type FeedbackOutcome =
  | { version: number; name?: string; changed?: boolean }
  | { rejected: string }
  | { review: ReviewedProposal };

/**
 * Marks feedback as used: learned into `version` (`applied` when it changed
 * the instructions, else `used`), refused (`rejected`), or kept for a person
 * (`review`). Feedback that already shaped a version stays `applied`.
 */
export async function markFeedback(store: BaseStore, records: readonly FeedbackRecord[], outcome: FeedbackOutcome): Promise<void> {
  await markEach(store, records.map((r) => [r, [outcome]] as const));
}

/** Precedence when one record has several outcomes (a multi-prompt run): the last one applied wins. */
const ORDER = (o: FeedbackOutcome) => ("rejected" in o ? 0 : "version" in o ? (o.changed === false ? 1 : 2) : 3);

/** Marks each record with all its outcomes (several prompts may have learned from it). */
export async function markEach(store: BaseStore, pairs: readonly (readonly [FeedbackRecord, readonly FeedbackOutcome[]])[]): Promise<void> {
  const at = new Date().toISOString();
  const out = pairs.filter(([, o]) => o.length > 0).map(([r, outcomes]) => [...outcomes].sort((a, b) => ORDER(a) - ORDER(b)).reduce((acc, o) => withOutcome(acc, o, at), r));
  await writeRecords(store, out);
}

function withOutcome(r: FeedbackRecord, outcome: FeedbackOutcome, at: string): FeedbackRecord {
  const base = { ...r, usedAt: at };
  if ("version" in outcome) {
    const changed = outcome.changed ?? true;
    const appliedIn = changed ? [...(r.appliedIn ?? []), { name: outcome.name ?? DEFAULT_PROCEDURE_NAME, version: outcome.version }] : r.appliedIn;
    return { ...base, appliedInVersion: outcome.version, ...(appliedIn ? { appliedIn } : {}), status: changed || r.status === "applied" ? "applied" : "used" };
  }
  if ("rejected" in outcome) return { ...base, rejected: outcome.rejected, status: r.status === "applied" ? "applied" : "rejected" };
  return { ...base, review: { ...outcome.review, at }, status: "review" };
}

/**
 * Deletes used feedback of a scope that no kept version needs: records that
 * shaped no version (`used`, `rejected`) once older than `olderThanDays`, and
 * `applied` ones whose versions are all gone from the history of the prompts
 * in `keptVersions` (name → versions kept). Reads at most
 * `limit` records. Returns how many were deleted.
 */
export async function retireFeedback(
  store: BaseStore,
  scope: { agentId: string; userId?: string },
  options: { keptVersions: ReadonlyMap<string, ReadonlySet<number>>; olderThanDays: number; limit: number },
): Promise<number> {
  const namespace = procedureNamespace(scope.agentId, scope.userId, PROCEDURE_FEEDBACK_ROOT);
  const real = underlyingStore(store);
  const cutoff = new Date(Date.now() - options.olderThanDays * 86_400_000).toISOString();
  const page = await real.search(namespace, { limit: options.limit, filter: { status: { $in: ["applied", "used", "rejected"] } } });
  const gone = page.filter((item) => {
    const r = item.value as unknown as FeedbackRecord;
    if (item.namespace.length !== namespace.length || typeof r?.id !== "string") return false;
    if (r.status === "applied") {
      // Kept while any version it shaped is kept, or shaped a prompt this run did not check.
      const shaped = r.appliedIn ?? (r.appliedInVersion === undefined ? [] : [{ name: DEFAULT_PROCEDURE_NAME, version: r.appliedInVersion }]);
      return shaped.length > 0 && shaped.every((a) => options.keptVersions.has(a.name) && !options.keptVersions.get(a.name)!.has(a.version));
    }
    return (r.usedAt ?? r.createdAt) < cutoff;
  });
  if (gone.length) await real.batch(gone.map((item) => ({ namespace: item.namespace, key: item.key, value: null })));
  return gone.length;
}
