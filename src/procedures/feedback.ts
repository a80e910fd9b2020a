import { randomBytes } from "node:crypto";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { toPlainMessages, type ConversationMessage } from "../extract/messages.js";
import { PROCEDURE_FEEDBACK_ROOT, procedureNamespace } from "../scope/procedure-namespace.js";
import { underlyingStore } from "../scope/resolve-store.js";

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
}

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
  /** The version of the instructions learned from it, once the optimizer used it. */
  appliedInVersion?: number;
  /** Set when a proposal from it was refused: the rule that refused it. */
  rejected?: string;
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
  if (!input || typeof input !== "object") throw new InvalidArgumentError("recordFeedback needs { agentId, threadId, score | comment | correction }");
  const namespace = procedureNamespace(input.agentId, input.userId, PROCEDURE_FEEDBACK_ROOT);
  if (typeof input.threadId !== "string" || input.threadId === "") throw new InvalidArgumentError(`feedback threadId must be a non-empty string, got ${JSON.stringify(input.threadId)}`);
  if (input.score !== undefined && (typeof input.score !== "number" || !Number.isFinite(input.score))) {
    throw new InvalidArgumentError(`feedback score must be a finite number, got ${JSON.stringify(input.score)}`);
  }
  const comment = optionalText("comment", input.comment);
  const correction = optionalText("correction", input.correction);
  if (input.score === undefined && !comment && !correction) throw new InvalidArgumentError("feedback needs a score, a comment or a correction");
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
  };
  await underlyingStore(store).put(namespace, record.id, record as unknown as Record<string, unknown>, false);
  return record;
}

/** Options of {@link listFeedback}. */
export interface ListFeedbackOptions {
  agentId: string;
  /** The user whose feedback to list. @default undefined (agent-level feedback) */
  userId?: string;
  /** Only feedback no optimizer run has used yet. @default true */
  pending?: boolean;
  /** Most records, newest first. @default 20 */
  limit?: number;
}

/** Recorded feedback of an agent (or of one of its users), newest first. */
export async function listFeedback(store: BaseStore, options: ListFeedbackOptions): Promise<FeedbackRecord[]> {
  const namespace = procedureNamespace(options.agentId, options.userId, PROCEDURE_FEEDBACK_ROOT);
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError(`limit must be an integer ≥ 1, got ${JSON.stringify(options.limit)}`);
  const real = underlyingStore(store);
  const out: FeedbackRecord[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await real.search(namespace, { limit: 500, offset });
    for (const item of page) {
      if (item.namespace.length !== namespace.length) continue;
      const r = item.value as unknown as FeedbackRecord;
      if (typeof r?.id !== "string") continue;
      if ((options.pending ?? true) && (r.appliedInVersion !== undefined || r.rejected !== undefined)) continue;
      out.push(r);
    }
    if (page.length < 500) break;
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).slice(0, limit);
}

/** Marks feedback as used: learned into `version`, or refused (`rejected`). */
export async function markFeedback(store: BaseStore, records: readonly FeedbackRecord[], outcome: { version: number } | { rejected: string }): Promise<void> {
  if (records.length === 0) return;
  const real = underlyingStore(store);
  await real.batch(
    records.map((r) => ({
      namespace: procedureNamespace(r.agentId, r.userId, PROCEDURE_FEEDBACK_ROOT),
      key: r.id,
      value: { ...r, ...("version" in outcome ? { appliedInVersion: outcome.version } : { rejected: outcome.rejected }) } as unknown as Record<string, unknown>,
      index: false as const,
    })),
  );
}
