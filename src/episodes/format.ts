import { escapePromptText } from "../prompt/prompt-text.js";
import type { Episode } from "./episode.js";

/** The line that opens the past-conversation section of the memory context. */
export const EPISODES_SECTION_HEADER = "Past conversation turns (quoted from earlier threads, with their date and thread):";

/** Stored text as one escaped line (see escapePromptText). */
const oneLine = (text: string) => escapePromptText(text, { oneLine: true });

/**
 * One episode as a line: `- [2024-03-02, thread t1] user: I started at Acme.`,
 * with the days its relative dates meant (`(last Friday = 2024-03-01)`),
 * then, when its neighbours were fetched, indented lines for the turn before
 * and after.
 */
export function formatEpisode(episode: Episode): string {
  const lines: string[] = [];
  if (episode.before) lines.push(`    (before) ${oneLine(episode.before.speaker)}: ${oneLine(episode.before.text)}`);
  const when = episode.when?.length ? ` (${episode.when.map((w) => `${oneLine(w.phrase)} = ${oneLine(w.date)}`).join("; ")})` : "";
  lines.unshift(`- [${oneLine(episode.date)}, thread ${oneLine(episode.threadId)}] ${oneLine(episode.speaker)}: ${oneLine(episode.text)}${when}`);
  if (episode.after) lines.push(`    (after) ${oneLine(episode.after.speaker)}: ${oneLine(episode.after.text)}`);
  return lines.join("\n");
}
