import { toPlainMessages, type ConversationMessage } from "../extract/messages.js";

/** One conversation the optimizer learns from, with its feedback. */
export interface Trajectory {
  /** The conversation: LangChain messages or `{ role, content }` objects. */
  messages: readonly ConversationMessage[];
  /** Feedback on it. @default undefined (the conversation alone) */
  feedback?: { score?: number; comment?: string; correction?: string };
  /** The feedback record it came from, if any. @default undefined */
  id?: string;
}

/** Tags of the optimizer's input; conversation text cannot open or close them. */
const TAGS = /<(\/?)(current_instructions|conversations|conversation|feedback|review|recommendations|update_instructions|when_to_update|prompts|prompt)\b/gi;
const neutralise = (s: string) => s.replace(TAGS, "‹$1$2");
/** Conversation text: tags neutralised and continuation lines indented, so no line of it can pass for a feedback line. */
const quoted = (s: string) => neutralise(s).replace(/\r?\n/g, "\n  ");
/** Feedback text: one line. */
const oneLine = (s: string) => neutralise(s).replace(/\s*\n\s*/g, " ");

/** Longest rendering of one conversation (its end is kept). */
export const MAX_TRAJECTORY_CHARS = 4000;

/** One trajectory as text: the turns, then the feedback. */
export function renderTrajectory(t: Trajectory, n: number): string {
  const turns = toPlainMessages(t.messages ?? [])
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.text.length > 0)
    .map((m) => `${m.role}: ${quoted(m.text)}`)
    .join("\n");
  const clipped = turns.length > MAX_TRAJECTORY_CHARS ? `…${turns.slice(-MAX_TRAJECTORY_CHARS)}` : turns;
  const f = t.feedback ?? {};
  const feedback = [
    f.score === undefined ? "" : `score: ${f.score}`,
    f.comment ? `comment: ${oneLine(f.comment)}` : "",
    f.correction ? `correction typed by the user: ${oneLine(f.correction)}` : "",
  ].filter(Boolean);
  return `<conversation id="${n}">\n${clipped}\n<feedback>\n${feedback.join("\n") || "(none)"}\n</feedback>\n</conversation>`;
}

/** The current instructions block. */
export function renderInstructions(instructions: string): string {
  return `<current_instructions>\n${neutralise(instructions) || "(none yet)"}\n</current_instructions>`;
}

/**
 * As many trajectories as fit in `budget` characters, newest (last) first,
 * rendered in their original order; and how many were left out.
 */
export function fitTrajectories(trajectories: readonly Trajectory[], budget: number): { text: string; used: Trajectory[]; dropped: number } {
  const picked: { t: Trajectory; text: string }[] = [];
  let size = "<conversations>\n</conversations>".length;
  for (let i = trajectories.length - 1; i >= 0; i--) {
    const text = renderTrajectory(trajectories[i], i + 1);
    if (size + text.length + 1 > budget) break;
    size += text.length + 1;
    picked.unshift({ t: trajectories[i], text });
  }
  return {
    text: `<conversations>\n${picked.map((p) => p.text).join("\n")}\n</conversations>`,
    used: picked.map((p) => p.t),
    dropped: trajectories.length - picked.length,
  };
}

/** Per-instruction guidance, as LangMem's `update_instructions` / `when_to_update`. */
export interface PromptGuidance {
  /** How this prompt may be changed (e.g. "keep it under five lines; never remove the refund rule"). @default undefined */
  updateInstructions?: string;
  /** When this prompt should change at all (e.g. "only for feedback about tone"). @default undefined */
  whenToUpdate?: string;
}

/** The guidance blocks for the optimizer's input ("" when there is none). */
export function renderGuidance(g: PromptGuidance | undefined): string {
  const parts: string[] = [];
  if (g?.whenToUpdate) parts.push(`<when_to_update>\n${neutralise(g.whenToUpdate)}\n</when_to_update>`);
  if (g?.updateInstructions) parts.push(`<update_instructions>\n${neutralise(g.updateInstructions)}\n</update_instructions>`);
  return parts.join("\n");
}

/** One named prompt for the attribution call. */
export function renderNamedPrompt(name: string, instructions: string, g: PromptGuidance | undefined): string {
  const guidance = renderGuidance(g);
  return `<prompt name="${name}">\n${renderInstructions(instructions)}${guidance ? `\n${guidance}` : ""}\n</prompt>`;
}
