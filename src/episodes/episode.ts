import type { Item } from "@langchain/langgraph-checkpoint";
import { EPISODE_CURSOR_ROOT } from "../store/hidden-namespaces.js";
import type { ResolvedDate } from "./dates.js";

/**
 * The default namespace template for episodes: one namespace per user,
 * holding every turn of every thread, e.g. `["episodes", "42"]`.
 */
export const EPISODE_NAMESPACE = ["episodes", "{user_id}"] as const;

/**
 * The root label of the namespace where episode cursors live: the cursor of
 * thread `t1` for episodes in `["episodes", "42"]` is the item `t1` in
 * `["episode_cursors", "episodes", "42"]`, outside the episodes' prefix, so
 * that searches never return it. Cursors are stored with `index: false`.
 */
export { EPISODE_CURSOR_ROOT };

/**
 * The value fields embedded and keyword-indexed for a turn (passed as `put`'s
 * `index` argument): `said`, `"<speaker>: <text>"`, one vector per turn.
 * (Episodes recorded by earlier versions also indexed a longer `context`, the date, the
 * turn before and the turn, at twice the embedding cost; search reads both.)
 */
export const EPISODE_INDEX_FIELDS = ["said"] as const;

/** What the store holds for one turn of a conversation. */
export interface EpisodeValue {
  /** The turn as it was said (what recall returns). */
  text: string;
  /** Who said it: `user`, `assistant`, or a name given to {@link recordEpisodes}. */
  speaker: string;
  /** The message role: `user` or `assistant`. */
  role: string;
  /** The thread (conversation) the turn belongs to. */
  threadId: string;
  /** Position of the turn in its thread, from 0 (only user and assistant turns count). */
  turn: number;
  /** When the turn was recorded (ISO 8601). */
  timestamp: string;
  /** The session's calendar date, `YYYY-MM-DD`. */
  date: string;
  /** Indexed: `"<speaker>: <text>"`, the turn on its own. */
  said: string;
  /** Indexed only by episodes recorded by earlier versions: date, previous turn and this turn. */
  context?: string;
  /** The turn's relative time expressions resolved against `date` ("last Friday" → 2024-03-01); absent when it has none. Not indexed. */
  when?: ResolvedDate[];
  /** Marks the item as an episode. */
  kind: "episode";
  [key: string]: unknown;
}

/** One turn returned by {@link searchEpisodes}. */
export interface Episode {
  /** The store key of the turn. */
  key: string;
  text: string;
  speaker: string;
  threadId: string;
  turn: number;
  date: string;
  timestamp: string;
  /** The turn's relative time expressions and the days they meant, when it has any. */
  when?: ResolvedDate[];
  /** The store's relevance score, when it gave one. */
  score?: number;
  /** The turn before, when neighbours were asked for and it exists. */
  before?: { speaker: string; text: string };
  /** The turn after, when neighbours were asked for and it exists. */
  after?: { speaker: string; text: string };
}

/**
 * The store key of turn `turn` of a thread: the thread id, `#`, and the turn
 * number padded to 6 digits, so keys sort in conversation order.
 */
export function episodeKey(threadId: string, turn: number): string {
  return `${threadId}#${String(turn).padStart(6, "0")}`;
}

/** The namespace of the cursors for episodes kept in `namespace`. */
export function episodeCursorNamespace(namespace: readonly string[]): string[] {
  return [EPISODE_CURSOR_ROOT, ...namespace];
}

/** Reads an item as an episode; undefined when it is not one. */
export function toEpisode(item: Pick<Item, "key" | "value"> & { score?: number }): Episode | undefined {
  const v = item.value as Partial<EpisodeValue> | null | undefined;
  if (!v || typeof v.text !== "string" || typeof v.threadId !== "string" || typeof v.turn !== "number") return undefined;
  const episode: Episode = {
    key: item.key,
    text: v.text,
    speaker: String(v.speaker ?? v.role ?? "user"),
    threadId: v.threadId,
    turn: v.turn,
    date: String(v.date ?? ""),
    timestamp: String(v.timestamp ?? ""),
  };
  if (Array.isArray(v.when) && v.when.length > 0) {
    episode.when = v.when.filter((w): w is ResolvedDate => typeof w?.phrase === "string" && typeof w?.date === "string");
  }
  if (typeof item.score === "number") episode.score = item.score;
  return episode;
}
