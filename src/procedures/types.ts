/**
 * The shapes of procedural memory: learned instructions, their versions and
 * the scope they apply to.
 */

/** Whose instructions: an agent's own, or those learned for one of its users. */
export interface ProcedureScope {
  /** The agent (e.g. `"support-bot"`). */
  agentId: string;
  /**
   * The user, for instructions learned for that user only
   * (`["procedures", agentId, userId]`).
   * @default undefined (the agent's own instructions, `["procedures", agentId]`)
   */
  userId?: string;
  /**
   * The name of the prompt, for agents with several (one key per name).
   * @default "instructions"
   */
  name?: string;
}

/** How a version came to be: an optimizer strategy, the explicit API, or a restore. */
export type ProcedureSource = "optimizer:metaprompt" | "optimizer:gradient" | "api" | "restore" | (string & {});

/** One version of learned instructions, as stored (the current one, or a kept earlier one). */
export interface ProcedureRecord {
  /** The instructions' text. */
  instructions: string;
  /** 1 for the first version, then +1 per change (restores included). */
  version: number;
  /** What made this version. */
  source: ProcedureSource;
  /** Why: the optimizer's rationale, or the reason given to the explicit API. */
  reason: string;
  /** The feedback records this version was learned from. */
  feedbackIds: string[];
  /** Who made the change, when known (an operator, a service). */
  identity?: string;
  /** ISO time of the change. */
  changedAt: string;
  /** For `source: "restore"`: the version restored. */
  restoredFrom?: number;
  /** Lines added and removed against the previous version. */
  diff: { added: number; removed: number };
}

/** The default prompt name. */
export const DEFAULT_PROCEDURE_NAME = "instructions";
