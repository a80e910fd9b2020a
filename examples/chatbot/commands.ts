import type { ChatSession, MemoryEntry } from "./session.js";
import type { SaveResult } from "../../src/index.js";

/** The in-chat commands, for `/help`. */
export const HELP = [
  "/memories         what is remembered about this user, newest first",
  "/forget KEY       forget one memory (keys are shown by /memories)",
  "/forget-all       forget everything about this user (memories and threads)",
  "/thread NAME      switch to another thread (conversation) of this user",
  "/user ID          switch user",
  "/help             this list",
  "/quit             leave",
].join("\n");

/** What a command asks the loop to do, besides printing. */
export interface CommandOutcome {
  output: string;
  quit?: boolean;
}

export function formatMemories(entries: MemoryEntry[]): string {
  if (entries.length === 0) return "(no memories)";
  return entries.map((m) => `[${m.key}] ${m.text}  (${m.updatedAt.toISOString()})`).join("\n");
}

/** One line per memory the extractor changed, e.g. "+ User is vegetarian." */
export function formatSaved(saved: SaveResult | undefined): string[] {
  if (!saved) return [];
  return [
    ...saved.added.map((m) => `+ ${m.text}`),
    ...saved.updated.map((m) => `~ ${m.text}${m.previousText && m.previousText !== m.text ? ` (was: ${m.previousText})` : ""}`),
    ...saved.deleted.map((m) => `- ${m.text}`),
  ];
}

/** Runs a `/command` line against the session. Returns undefined for a line that is not a command. */
export async function runCommand(session: ChatSession, line: string): Promise<CommandOutcome | undefined> {
  const m = /^\/(\S+)\s*(.*)$/.exec(line.trim());
  if (!m) return undefined;
  const [, name, rest] = m;
  const arg = rest.trim();
  switch (name) {
    case "memories":
      return { output: formatMemories(await session.memories()) };
    case "forget":
      if (!arg) return { output: "usage: /forget KEY (see /memories for keys)" };
      return { output: (await session.forget(arg)) ? `forgot [${arg}]` : `no memory with key ${arg}` };
    case "forget-all": {
      const { memories, threads } = await session.forgetAll();
      return { output: `forgot ${memories} memor${memories === 1 ? "y" : "ies"} and ${threads} thread${threads === 1 ? "" : "s"} of user ${session.userId}` };
    }
    case "thread":
      if (!arg) return { output: `thread: ${session.thread} (threads of user ${session.userId}: ${session.threads().join(", ") || "none yet"})` };
      session.thread = arg;
      return { output: `switched to thread ${arg}` };
    case "user":
      if (!arg) return { output: `user: ${session.userId}` };
      session.userId = arg;
      return { output: `switched to user ${arg} (thread ${session.thread})` };
    case "help":
      return { output: HELP };
    case "quit":
    case "exit":
      return { output: "bye", quit: true };
    default:
      return { output: `unknown command /${name}\n${HELP}` };
  }
}
