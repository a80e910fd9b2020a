import type { MemoryLogger } from "../scope/background-runs.js";

/** How the learned-instructions section fit its budget. */
export interface SectionFit {
  /** The lines sent (agent's, then "For this user:" and the user's). */
  lines: string[];
  /** Lines left out to fit, per layer. */
  cut: { agent: number; user: number };
}

/** The line that opens the user's layer. */
export const USER_LAYER_LINE = "For this user:";

const cost = (lines: readonly string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

/** The first lines of `lines` that fit in `room` characters (each line costs its length + 1). */
function prefix(lines: readonly string[], room: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > room) break;
    out.push(line);
    used += line.length + 1;
  }
  return out;
}

/**
 * Fits the agent's and the user's lines into `room` characters so that both
 * layers are represented: when both cannot fit whole, each may use at least
 * half of the room (a layer that needs less leaves the rest to the other).
 * Lines are kept in order; what does not fit is counted in `cut`.
 */
export function fitSection(agent: readonly string[], user: readonly string[] | undefined, room: number): SectionFit {
  const userLines = user && user.length ? [USER_LAYER_LINE, ...user] : [];
  const need = { agent: cost(agent), user: cost(userLines) };
  let agentRoom = room;
  if (userLines.length && need.agent + need.user > room) agentRoom = Math.min(need.agent, Math.max(room - need.user, Math.floor(room / 2)));
  const a = prefix(agent, agentRoom);
  const u = userLines.length ? prefix(userLines, room - cost(a)) : [];
  const userKept = u.length > 1 ? u : []; // the heading alone says nothing
  return { lines: [...a, ...userKept], cut: { agent: agent.length - a.length, user: user && user.length ? user.length - Math.max(0, userKept.length - 1) : 0 } };
}

/** Cuts already logged (bounded), so a cut is reported once per versions and budget, not per model call. */
const logged = new Set<string>();

/** Logs a cut once per `at.key` (the scope and its versions; never logged itself); `at.label` names the agent. */
export function logSectionCut(logger: MemoryLogger, at: { key: string; label: string }, cut: SectionFit["cut"], maxTokens: number): void {
  const key = `${at.key} ${maxTokens}`;
  if (cut.agent + cut.user === 0 || logged.has(key)) return;
  if (logged.size >= 1000) logged.clear();
  logged.add(key);
  logger.warn(
    `learned instructions: ${cut.agent} agent-wide and ${cut.user} user line(s) of ${at.label} left out to fit procedures.maxTokens (${maxTokens}); ` +
      "raise maxTokens or shorten the instructions (the inspector's Procedures view shows what is cut)",
  );
}
