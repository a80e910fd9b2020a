import type { Episode } from "./episode.js";

/** The line that opens the past-conversation section of the memory context. */
export const EPISODES_SECTION_HEADER = "Past conversation turns (quoted from earlier threads, with their date and thread):";

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * One episode as a line: `- [2024-03-02, thread t1] user: I started at Acme.`,
 * with the days its relative dates meant (`(last Friday = 2024-03-01)`),
 * then, when its neighbours were fetched, indented lines for the turn before
 * and after.
 */
export function formatEpisode(episode: Episode): string {
  const lines: string[] = [];
  if (episode.before) lines.push(`    (before) ${episode.before.speaker}: ${oneLine(episode.before.text)}`);
  const when = episode.when?.length ? ` (${episode.when.map((w) => `${w.phrase} = ${w.date}`).join("; ")})` : "";
  lines.unshift(`- [${episode.date}, thread ${episode.threadId}] ${episode.speaker}: ${oneLine(episode.text)}${when}`);
  if (episode.after) lines.push(`    (after) ${episode.after.speaker}: ${oneLine(episode.after.text)}`);
  return lines.join("\n");
}
