import { readFile } from "node:fs/promises";
import { episodeContext, episodeKey } from "../../src/episodes/episode.js";

export type QuestionKind = "single-hop" | "context" | "temporal" | "multi-hop";
export const KINDS: QuestionKind[] = ["single-hop", "context", "temporal", "multi-hop"];

export interface LargeConversation {
  id: string;
  split: "tune" | "heldout";
  speakers: [string, string];
  sessions: Array<{ date: string; turns: Array<[string, string]> }>;
  questions: Array<{ q: string; kind: QuestionKind; evidence: Array<[number, number]>; answer: string }>;
}

/** The generated set (bench/data/conversations-large.json), optionally one split. */
export async function loadLargeConversations(split: "tune" | "heldout" | "all"): Promise<LargeConversation[]> {
  const file = JSON.parse(await readFile(new URL("../data/conversations-large.json", import.meta.url), "utf8")) as { conversations: LargeConversation[] };
  return file.conversations.filter((c) => split === "all" || c.split === split);
}

/** The thread id of a session: one thread per session. */
export const sessionThread = (si: number) => `s${si}`;

/** The store key of a turn, as recordEpisodes writes it. */
export const turnKey = (si: number, ti: number) => episodeKey(sessionThread(si), ti);

/** The baseline item text of a turn, as the measurement stored it: `"<speaker>: <text>"`. */
export const baselineText = (speaker: string, text: string) => `${speaker}: ${text}`;

/** Every text the benchmark embeds for a conversation: baseline turns and episode contexts. */
export function textsToEmbed(c: LargeConversation): string[] {
  const out: string[] = [];
  for (const s of c.sessions) {
    s.turns.forEach(([speaker, text], ti) => {
      out.push(baselineText(speaker, text));
      const prev = ti > 0 ? { speaker: s.turns[ti - 1]![0], text: s.turns[ti - 1]![1] } : undefined;
      out.push(episodeContext({ speaker, text, date: s.date }, prev));
    });
  }
  return out;
}
