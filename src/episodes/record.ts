import { MAX_TTL_MINUTES } from "../store/ttl.js";
import { checkKnownKeys } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseStore, PutOperation } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { unreadFrom } from "../extract/cursor.js";
import { toPlainMessages, type ConversationMessage } from "../extract/messages.js";
import { resolveRelativeDates } from "./dates.js";
import { episodeCursorNamespace, episodeKey, EPISODE_INDEX_FIELDS, type EpisodeValue } from "./episode.js";

/** Options for {@link recordEpisodes}. */
export interface RecordEpisodesOptions {
  /** The store to write to. */
  store: BaseStore;
  /** The user's episode namespace, already resolved, e.g. `["episodes", "42"]`. */
  namespace: string[];
  /** The thread the messages belong to; keys the cursor and the turns. */
  threadId: string;
  /** The whole thread so far (LangChain or `{ role, content }` messages). Only the turns not yet recorded are written. */
  messages: readonly ConversationMessage[];
  /**
   * When the new turns were said: sets each turn's `timestamp` and `date`.
   * @default new Date()
   */
  now?: Date | string | number;
  /**
   * Names to record as the speaker of user and assistant turns, e.g.
   * `{ user: "Ana" }`, so that "what did Ana say about…" can match.
   * @default { user: "user", assistant: "assistant" }
   */
  speakers?: { user?: string; assistant?: string };
  /**
   * Time to live of the episodes, in minutes, for stores that support expiry.
   * @default undefined (no expiry)
   */
  ttl?: number;
}

/** What the store holds for one thread's episodes. */
interface EpisodeCursor {
  /** How many messages of the thread have been read. */
  processed: number;
  /** Fingerprint of the last message read. */
  last: string;
  /** How many turns of the thread have been recorded (the next turn's number). */
  turns: number;
  updatedAt: string;
}

async function readEpisodeCursor(store: BaseStore, namespace: string[], threadId: string): Promise<EpisodeCursor | undefined> {
  const v = (await store.get(episodeCursorNamespace(namespace), threadId))?.value as Partial<EpisodeCursor> | undefined;
  if (!v || typeof v.processed !== "number" || typeof v.last !== "string" || typeof v.turns !== "number") return undefined;
  return { processed: v.processed, last: v.last, turns: v.turns, updatedAt: String(v.updatedAt ?? "") };
}

function toDate(now: RecordEpisodesOptions["now"]): Date {
  const d = now === undefined ? new Date() : new Date(now);
  if (Number.isNaN(d.getTime())) throw new InvalidArgumentError(`recordEpisodes: now is not a valid date, got ${JSON.stringify(now)}`);
  return d;
}

/**
 * Appends the thread's new user and assistant turns to the episode namespace,
 * one item per turn, and moves the thread's cursor past them. Calling it
 * again with the same thread writes only what was added since; a thread that
 * was rewritten (its last recorded message is gone) is recorded again from
 * the start under the same keys. System and tool messages, and assistant
 * messages with no text (tool calls only), are not turns.
 *
 * Each turn is stored with `value.text` (the turn, what recall shows) and the
 * indexed `value.said` (`"<speaker>: <text>"`): one embedding per turn, so
 * recording costs what putting the turns as plain items costs. The turns
 * around a match are scored at search time instead ({@link searchEpisodes}).
 *
 * @returns the keys written, in order.
 * @example
 * ```ts
 * await recordEpisodes({ store, namespace: ["episodes", userId], threadId, messages: state.messages });
 * ```
 */
export async function recordEpisodes(options: RecordEpisodesOptions): Promise<string[]> {
  checkKnownKeys(options, OPTION_KEYS.recordEpisodes);
  const { store, namespace, threadId, messages } = options ?? ({} as RecordEpisodesOptions);
  if (!store || typeof store.batch !== "function") throw new InvalidArgumentError("recordEpisodes needs `store`, a BaseStore");
  if (!Array.isArray(namespace) || namespace.length === 0 || namespace.some((l) => typeof l !== "string" || l === "")) {
    throw new InvalidArgumentError(`recordEpisodes needs a resolved namespace of non-empty labels, got ${JSON.stringify(namespace)}`);
  }
  if (typeof threadId !== "string" || threadId === "") throw new InvalidArgumentError(`recordEpisodes needs a threadId, got ${JSON.stringify(threadId)}`);
  if (!Array.isArray(messages)) throw new InvalidArgumentError("recordEpisodes needs `messages`, an array");
  if (options.ttl !== undefined && (!Number.isFinite(options.ttl) || options.ttl <= 0 || options.ttl > MAX_TTL_MINUTES)) {
    throw new InvalidArgumentError(`recordEpisodes ttl must be a positive number of minutes, got ${String(options.ttl)}`);
  }
  const when = toDate(options.now);
  const timestamp = when.toISOString();
  const date = timestamp.slice(0, 10);
  const plain = toPlainMessages(messages);
  if (plain.length === 0) return [];

  const cursor = await readEpisodeCursor(store, namespace, threadId);
  const from = unreadFrom(cursor, plain);
  const restart = from === 0;
  let turn = restart ? 0 : cursor!.turns;
  const ops: PutOperation[] = [];
  const keys: string[] = [];
  for (const m of plain.slice(from)) {
    if ((m.role !== "user" && m.role !== "assistant") || m.text.length === 0) continue;
    const speaker = (m.role === "user" ? options.speakers?.user : options.speakers?.assistant) ?? m.role;
    const value: EpisodeValue = {
      text: m.text,
      speaker,
      role: m.role,
      threadId,
      turn,
      timestamp,
      date,
      said: `${speaker}: ${m.text}`,
      kind: "episode",
    };
    const resolved = resolveRelativeDates(m.text, date);
    if (resolved.length > 0) value.when = resolved;
    const key = episodeKey(threadId, turn);
    const op: PutOperation = { namespace, key, value, index: [...EPISODE_INDEX_FIELDS] };
    if (options.ttl !== undefined) (op as PutOperation & { ttl?: number }).ttl = options.ttl;
    ops.push(op);
    keys.push(key);
    turn++;
  }
  const next: EpisodeCursor = { processed: plain.length, last: plain[plain.length - 1]!.fingerprint, turns: turn, updatedAt: timestamp };
  ops.push({ namespace: episodeCursorNamespace(namespace), key: threadId, value: next as unknown as Record<string, unknown>, index: false });
  await store.batch(ops);
  return keys;
}
