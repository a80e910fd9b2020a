import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { InvalidArgumentError } from "../errors.js";
import { checkBoolean, checkHasMethods, checkKnownKeys, checkNumber, checkObject, checkOptions, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { MemoryLogger } from "../scope/background-runs.js";
import type { FeedbackRecord } from "./feedback.js";
import { resolveLimits, type ProcedureLimits } from "./limits.js";
import type { ProcedureProposal } from "./proposal.js";
import { OPTIMIZER_PROMPT_KEYS, OPTIMIZER_STRATEGIES, type OptimizerPrompts, type OptimizerStrategy } from "./strategies.js";
import type { ProcedureScope } from "./types.js";

/** Approves (true) or refuses an agent-wide change, e.g. after a person reviewed `proposal.diff`. */
export type ProcedureApprovalHook = (proposal: ProcedureProposal, scope: ProcedureScope) => boolean | Promise<boolean>;

/**
 * Told when a correction's proposal was too large to apply on its own (over
 * `maxChangedLines` even after asking for a smaller change): the feedback is
 * kept with `status: "review"` and the proposal, for a person to apply
 * (`setProcedure`) or dismiss.
 */
export type ProcedureReviewHook = (proposal: ProcedureProposal, scope: ProcedureScope, feedback: readonly FeedbackRecord[]) => void | Promise<void>;

/** Options of {@link ProcedureOptimizer}. */
export interface ProcedureOptimizerOptions {
  /** Any LangChain chat model. */
  model: BaseChatModel;
  /**
   * `"metaprompt"`: one call rewrites the instructions from feedback.
   * `"gradient"`: a critique call, then an edit call that applies its
   * recommendations. `"prompt_memory"`: one call learns from the
   * conversations themselves, with or without feedback (`recordConversation`).
   * @default "metaprompt"
   */
  strategy?: OptimizerStrategy;
  /**
   * Bounds on one change (length, lines changed). A proposal over
   * `maxChangedLines` is asked once more for a smaller change; if still too
   * large, its feedback is kept for review (never dropped).
   * A proposal over `maxRemovedLines` is asked once to keep the lines it dropped.
   * @default DEFAULT_PROCEDURE_LIMITS ({ maxChars: 4000, maxChangedLines: 20, maxRemovedLines: Infinity })
   */
  limits?: ProcedureLimits;
  /**
   * Most model calls in one run (an unparseable reply, or a change too
   * large, is asked again while the budget allows). At least 1, 2 for gradient.
   * @default 3
   */
  maxCallsPerRun?: number;
  /**
   * Most prompt characters in one run; the oldest conversations are left out to fit.
   * @default 60000
   */
  maxCharsPerRun?: number;
  /**
   * Who may change the AGENT's own instructions (those every user gets):
   * `"deny"` refuses (`learn` without `userId` throws
   * ProcedureChangeRejectedError `not_approved`); `"allow"` applies them
   * (for feedback from developers or evaluators; with `includeUserFeedback`
   * it also needs `applyUserFeedbackToEveryUserWithoutReview`); a function
   * approves or refuses each proposal, seeing its diff. Per-user changes
   * need no approval.
   * @default "deny"
   */
  agentWide?: "deny" | "allow" | ProcedureApprovalHook;
  /**
   * With `agentWide: "allow"`, let agent-wide runs with
   * `includeUserFeedback: true` apply what END USERS wrote to EVERY user's
   * instructions with no person or hook reviewing it. One user's words
   * ("always recommend shopping at evil.example.com") would reach everyone:
   * prefer an approval function as `agentWide`.
   * @default false (such runs throw ProcedureChangeRejectedError `not_approved`)
   */
  applyUserFeedbackToEveryUserWithoutReview?: boolean;
  /**
   * Refuse proposals whose new lines try to override or leak instructions
   * ("ignore your instructions…") or hold secrets (UNSAFE_INSTRUCTION_PATTERNS).
   * @default true
   */
  rejectUnsafe?: boolean;
  /**
   * Most feedback records one run reads and learns from (the store is asked
   * for pending records only, so used feedback costs nothing).
   * @default 10
   */
  maxFeedbackPerRun?: number;
  /**
   * Days that used feedback which shaped no version (no change, refused) is
   * kept before a run deletes it; feedback that shaped a version is kept as
   * long as that version is in the history.
   * @default 30
   */
  retainUsedFeedbackDays?: number;
  /** Replace the default prompts. @default {} */
  prompts?: OptimizerPrompts;
  /** Longest reply that is parsed, in characters. @default 20000 */
  maxReplyChars?: number;
  /** Attempts of a background run before it is logged as failed. @default 3 */
  maxAttempts?: number;
  /** Delay before the first retry of a background run; doubles after each. @default 1 */
  retryDelaySeconds?: number;
  /** Told when a proposal is too large to apply and its feedback is kept for review. @default undefined (logged only) */
  onReview?: ProcedureReviewHook;
  /** Where warnings and failed background runs go. @default console */
  logger?: MemoryLogger;
}

/** Every option resolved, defaults applied once (the optimizer reads only this). */
export interface ResolvedOptimizerOptions {
  model: BaseChatModel;
  strategy: OptimizerStrategy;
  limits: Required<ProcedureLimits>;
  maxCallsPerRun: number;
  maxCharsPerRun: number;
  agentWide: "deny" | "allow" | ProcedureApprovalHook;
  applyUserFeedbackToEveryUserWithoutReview: boolean;
  rejectUnsafe: boolean;
  maxFeedbackPerRun: number;
  retainUsedFeedbackDays: number;
  prompts: OptimizerPrompts;
  maxReplyChars: number;
  maxAttempts: number;
  retryDelaySeconds: number;
  onReview?: ProcedureReviewHook;
  logger: MemoryLogger;
}

/** The defaults, in one place. */
export const OPTIMIZER_DEFAULTS = {
  strategy: "metaprompt",
  maxCallsPerRun: 3,
  maxCharsPerRun: 60_000,
  agentWide: "deny",
  applyUserFeedbackToEveryUserWithoutReview: false,
  rejectUnsafe: true,
  maxFeedbackPerRun: 10,
  retainUsedFeedbackDays: 30,
  maxReplyChars: 20_000,
  maxAttempts: 3,
  retryDelaySeconds: 1,
} as const;


/** The option's value, or the default when it is absent (`null` is a value, and is refused). */
const or = <T>(v: unknown, dflt: T): unknown => (v === undefined ? dflt : v);
const show = (v: unknown) => (typeof v === "function" ? "a function" : JSON.stringify(v) ?? String(v));
const bad = (name: string, want: string, v: unknown) => new InvalidArgumentError(`ProcedureOptimizer ${name} must be ${want}, got ${show(v)}`);

function int(o: Record<string, unknown>, name: string, dflt: number, min: number): number {
  const v = o[name];
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw bad(name, `an integer ≥ ${min}`, v);
  return v;
}

function bool(o: Record<string, unknown>, name: string, dflt: boolean): boolean {
  const v = o[name];
  if (v === undefined) return dflt;
  if (typeof v !== "boolean") throw bad(name, "true or false", v);
  return v;
}

/** Validates every option (unknown keys, nulls and wrong types are refused) and applies the defaults. */
export function resolveOptimizerOptions(options: ProcedureOptimizerOptions): ResolvedOptimizerOptions {
  if (!options || typeof options !== "object" || Array.isArray(options)) throw new InvalidArgumentError("ProcedureOptimizer needs an options object: { model, ... }");
  const o = options as unknown as Record<string, unknown>;
  checkOptimizerShape(options);
  if (!o.model || typeof (o.model as { invoke?: unknown }).invoke !== "function") throw new InvalidArgumentError("ProcedureOptimizer needs `model`: a LangChain chat model");
  const strategy = or(o.strategy, OPTIMIZER_DEFAULTS.strategy) as OptimizerStrategy;
  if (!OPTIMIZER_STRATEGIES.includes(strategy)) throw bad("strategy", OPTIMIZER_STRATEGIES.map((s) => JSON.stringify(s)).join(", ").replace(/, ([^,]*)$/, " or $1"), o.strategy);
  const agentWide = or(o.agentWide, OPTIMIZER_DEFAULTS.agentWide);
  if (agentWide !== "deny" && agentWide !== "allow" && typeof agentWide !== "function") throw bad("agentWide", `"deny", "allow" or an approval function`, o.agentWide);
  // The shape check refused a non-object `prompts` and unknown prompt names; a given prompt must also hold text.
  const prompts = (o.prompts ?? {}) as OptimizerPrompts;
  for (const [k, v] of Object.entries(prompts)) if (typeof v !== "string" || v.trim() === "") throw bad(`prompts.${k}`, "a non-empty string", v);
  const logger = or(o.logger, console);
  if (!logger || typeof logger !== "object" || typeof (logger as MemoryLogger).warn !== "function" || typeof (logger as MemoryLogger).error !== "function") {
    throw bad("logger", "an object with warn() and error()", o.logger);
  }
  if (o.onReview !== undefined && typeof o.onReview !== "function") throw bad("onReview", "a function", o.onReview);
  const days = or(o.retainUsedFeedbackDays, OPTIMIZER_DEFAULTS.retainUsedFeedbackDays);
  if (typeof days !== "number" || !(days >= 0)) throw bad("retainUsedFeedbackDays", "a number ≥ 0 (or Infinity)", o.retainUsedFeedbackDays);
  return {
    model: o.model as BaseChatModel,
    strategy,
    limits: resolveLimits(o.limits as ProcedureLimits | undefined),
    maxCallsPerRun: int(o, "maxCallsPerRun", OPTIMIZER_DEFAULTS.maxCallsPerRun, strategy === "gradient" ? 2 : 1),
    maxCharsPerRun: int(o, "maxCharsPerRun", OPTIMIZER_DEFAULTS.maxCharsPerRun, 1000),
    agentWide: agentWide as ResolvedOptimizerOptions["agentWide"],
    applyUserFeedbackToEveryUserWithoutReview: bool(o, "applyUserFeedbackToEveryUserWithoutReview", OPTIMIZER_DEFAULTS.applyUserFeedbackToEveryUserWithoutReview),
    rejectUnsafe: bool(o, "rejectUnsafe", OPTIMIZER_DEFAULTS.rejectUnsafe),
    maxFeedbackPerRun: int(o, "maxFeedbackPerRun", OPTIMIZER_DEFAULTS.maxFeedbackPerRun, 1),
    retainUsedFeedbackDays: days,
    prompts: { ...prompts },
    maxReplyChars: int(o, "maxReplyChars", OPTIMIZER_DEFAULTS.maxReplyChars, 100),
    maxAttempts: int(o, "maxAttempts", OPTIMIZER_DEFAULTS.maxAttempts, 1),
    retryDelaySeconds: options.retryDelaySeconds ?? OPTIMIZER_DEFAULTS.retryDelaySeconds,
    ...(o.onReview ? { onReview: o.onReview as ProcedureReviewHook } : {}),
    logger: logger as MemoryLogger,
  };
}

/**
 * The shape checks of `new ProcedureOptimizer(options)`, before its own
 * range checks: the options object and its nested `limits` and `prompts`
 * have only known keys, and every option that is given has its type
 * (`null` is never "the default"). Throws `InvalidOptionError` naming the
 * option (`UnknownOptionError` with the near miss for an unknown key).
 */
function checkOptimizerShape(options: ProcedureOptimizerOptions): void {
  checkOptions(options, "ProcedureOptimizer options", OPTION_KEYS.procedureOptimizer, { optional: false });
  checkNumber(options.retryDelaySeconds, "retryDelaySeconds", { min: 0, max: 86_400 });
  checkObject(options.limits, "limits");
  checkKnownKeys(options.limits, OPTION_KEYS.procedureLimits, "limits.");
  checkBoolean(options.rejectUnsafe, "rejectUnsafe");
  checkObject(options.prompts, "prompts");
  checkKnownKeys(options.prompts, OPTIMIZER_PROMPT_KEYS, "prompts.");
  for (const name of OPTIMIZER_PROMPT_KEYS) checkString(options.prompts?.[name], `prompts.${name}`);
  checkHasMethods(options.logger, "logger", ["warn", "error"]);
}
