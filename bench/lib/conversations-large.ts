import { readFile } from "node:fs/promises";
import { episodeKey } from "../../src/episodes/episode.js";

export type QuestionKind = "single-hop" | "context" | "temporal" | "multi-hop" | "open-domain";
/** Every kind either set asks; a report lists the kinds its set has. */
export const KINDS: QuestionKind[] = ["single-hop", "context", "multi-hop", "temporal", "open-domain"];

export interface LargeConversation {
  id: string;
  split: "tune" | "heldout";
  speakers: [string, string];
  sessions: Array<{ date: string; turns: Array<[string, string]> }>;
  questions: Array<{ q: string; kind: QuestionKind; evidence: Array<[number, number]>; answer: string }>;
}

/**
 * The two development sets, each split into `tune` and `heldout` by
 * conversation before any tuning:
 * - `dev1`: bench/data/conversations-large.json (make-conversations.ts; c0–c3 tune, c4–c7 held out);
 * - `dev2`: bench/data/chats-dev2.json (make-chats.ts, an independent design; d0–d3 tune, d4–d7 held out).
 */
export const SETS = { dev1: "conversations-large.json", dev2: "chats-dev2.json" } as const;
export type SetName = keyof typeof SETS;

/** One development set, optionally one split. */
export async function loadConversationSet(set: SetName, split: "tune" | "heldout" | "all"): Promise<LargeConversation[]> {
  const file = JSON.parse(await readFile(new URL(`../data/${SETS[set]}`, import.meta.url), "utf8")) as { conversations: LargeConversation[] };
  return file.conversations.filter((c) => split === "all" || c.split === split);
}

/** The first generated set (bench/data/conversations-large.json), optionally one split. */
export const loadLargeConversations = (split: "tune" | "heldout" | "all") => loadConversationSet("dev1", split);

/** The thread id of a session: one thread per session. */
export const sessionThread = (si: number) => `s${si}`;

/** The store key of a turn, as recordEpisodes writes it. */
export const turnKey = (si: number, ti: number) => episodeKey(sessionThread(si), ti);

/** The baseline item text of a turn, as the measurement stored it: `"<speaker>: <text>"`. */
export const baselineText = (speaker: string, text: string) => `${speaker}: ${text}`;

/** The previous-turn context texts the 0.x episodes embedded (for the "before" comparison). */
export function contextTexts(c: LargeConversation): string[] {
  const out: string[] = [];
  for (const s of c.sessions) {
    s.turns.forEach(([speaker, text], ti) => {
      const prev = ti > 0 ? { speaker: s.turns[ti - 1]![0], text: s.turns[ti - 1]![1] } : undefined;
      out.push(episodeContext({ speaker, text, date: s.date }, prev));
    });
  }
  return out;
}

/** Every text the benchmark embeds for a conversation: the turns (`"<speaker>: <text>"`) and its questions. */
export function textsToEmbed(c: LargeConversation): string[] {
  const out: string[] = [];
  for (const s of c.sessions) for (const [speaker, text] of s.turns) out.push(baselineText(speaker, text));
  return out.concat(c.questions.map((q) => q.q));
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/**
 * The date as words and digits ("Monday 8 May 2023, 2023-05-08"), so both a
 * question naming the month and one giving the ISO date can match it.
 */
function spokenDate(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${date}`;
}

/**
 * The indexed context of a turn as the previous release wrote it (for the
 * "before" rows; recordEpisodes no longer writes it): the session date, the turn before it (which
 * often holds the topic a short reply answers: "Are you still playing Civ?"
 * → "Been playing it for a month now") and the turn itself.
 */
export function episodeContext(turn: { speaker: string; text: string; date: string }, previous?: { speaker: string; text: string }): string {
  const lines = [`[${spokenDate(turn.date)}]`];
  if (previous) lines.push(`${previous.speaker}: ${previous.text}`);
  lines.push(`${turn.speaker}: ${turn.text}`);
  return lines.join("\n");
}
