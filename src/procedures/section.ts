import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { checkHasMethods, checkKnownKeys, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { escapePromptText } from "../prompt/prompt-text.js";
import { resolveStore } from "../scope/resolve-store.js";
import { runValue } from "../scope/run-values.js";
import type { MemoryLogger } from "../scope/background-runs.js";
import { fitSection, logSectionCut, type SectionFit } from "./section-budget.js";
import { getProcedure } from "./store.js";

/** The first line of the system section that carries learned instructions. */
export const LEARNED_INSTRUCTIONS_HEADER = "[Learned Instructions]";

/** The sentence under the header. */
export const LEARNED_INSTRUCTIONS_PREAMBLE =
  "These instructions were learned from feedback on earlier conversations. Follow them; when they conflict with the instructions above, those win.";

/** Procedural memory for callModel, withMemory and memoryMiddleware: which learned instructions to apply. */
export interface ProcedureOptions {
  /** The agent whose learned instructions are applied (`["procedures", agentId]`). */
  agentId: string;
  /**
   * The run value (from `context`, else `configurable`) that names the user
   * whose own learned instructions (`["procedures", agentId, userId]`) are
   * applied after the agent's; `false` applies the agent's only.
   * @default "user_id"
   */
  userKey?: string | false;
  /**
   * The prompt's name, for agents with several.
   * @default "instructions"
   */
  name?: string;
  /**
   * The store holding them.
   * @default the node's `store` option, else config.store
   */
  store?: BaseStore;
  /**
   * Token budget (estimated, 4 characters a token) of the section. When the
   * agent's and the user's instructions do not both fit, each layer keeps
   * at least half the budget; lines left out are logged (once per version)
   * and shown in the inspector's Procedures view.
   * @default 1000
   */
  maxTokens?: number;
  /** Where a cut is reported. @default console */
  logger?: MemoryLogger;
}

/** Validates procedure options (at construction); throws InvalidArgumentError (InvalidOptionError naming `procedures.<key>`). */
export function checkProcedureOptions(options: ProcedureOptions | undefined): void {
  if (options === undefined) return;
  if (!options || typeof options !== "object" || typeof options.agentId !== "string" || options.agentId === "") {
    throw new InvalidArgumentError(`procedures needs { agentId: "..." }, got ${JSON.stringify(options)}`);
  }
  checkKnownKeys(options, OPTION_KEYS.procedures, "procedures.");
  checkString(options.name, "procedures.name");
  checkHasMethods(options.store, "procedures.store", ["batch"]);
  if (options.userKey !== undefined && options.userKey !== false && (typeof options.userKey !== "string" || options.userKey === "")) {
    throw new InvalidArgumentError(`procedures.userKey must be a placeholder name or false, got ${JSON.stringify(options.userKey)}`);
  }
  const l = options.logger as unknown;
  if (l !== undefined && (!l || typeof (l as MemoryLogger).warn !== "function")) throw new InvalidArgumentError("procedures.logger must be an object with warn() and error()");
  const t = options.maxTokens;
  if (t !== undefined && (!Number.isInteger(t) || t < 1)) throw new InvalidArgumentError(`procedures.maxTokens must be an integer ≥ 1, got ${JSON.stringify(t)}`);
}

/** The keys of run values the section reads (for middleware context schemas). */
export function procedureContextKeys(options: ProcedureOptions | undefined): string[] {
  if (!options || options.userKey === false) return [];
  return [options.userKey ?? "user_id"];
}

/**
 * The learned-instructions system section for one model call: the agent's
 * own instructions, then the run's user's, under {@link LEARNED_INSTRUCTIONS_HEADER},
 * within `maxTokens`; undefined when none were learned. Read per call and
 * never written to the graph state, so checkpoints never hold it.
 */
export async function learnedInstructionsSection(
  options: ProcedureOptions,
  run: { store?: BaseStore; config?: LangGraphRunnableConfig },
): Promise<string | undefined> {
  const store = resolveStore(options.store ?? run.store, run.config);
  const name = options.name === undefined ? {} : { name: options.name };
  const agent = await getProcedure(store, { agentId: options.agentId, ...name });
  let user: Awaited<ReturnType<typeof getProcedure>>;
  let userId: string | undefined;
  if (options.userKey !== false) {
    const { value } = runValue(run.config, options.userKey ?? "user_id");
    if (typeof value === "string" || typeof value === "number") user = await getProcedure(store, { agentId: options.agentId, userId: (userId = String(value)), ...name });
  }
  if (!agent && !user) return undefined;
  const maxTokens = options.maxTokens ?? 1000;
  const built = buildLearnedSection(agent?.instructions, user?.instructions, maxTokens);
  const label = `${JSON.stringify(options.agentId)}${user ? " (agent-wide, and one user's layer)" : ""}`;
  logSectionCut(options.logger ?? console, { label, key: `${label} ${userId ?? ""} v${agent?.version ?? 0}/${user?.version ?? 0}` }, built.cut, maxTokens);
  return built.text;
}

/**
 * The section's text for given agent-wide and user instructions within
 * `maxTokens` (4 characters a token), and how many lines of each layer were
 * left out; `text` is undefined when nothing fits. Both layers are
 * represented whenever each fits in half the budget.
 */
export function buildLearnedSection(agent: string | undefined, user: string | undefined, maxTokens: number): { text?: string; cut: SectionFit["cut"] } {
  const head = [LEARNED_INSTRUCTIONS_HEADER, LEARNED_INSTRUCTIONS_PREAMBLE];
  const room = maxTokens * 4 - head.join("\n").length;
  // Stored instructions are escaped (role tags and the package's headers neutralised) before they join the section.
  const fit = fitSection(agent ? escapePromptText(agent).split("\n") : [], user ? escapePromptText(user).split("\n") : undefined, room);
  return { ...(fit.lines.length ? { text: [...head, ...fit.lines].join("\n") } : {}), cut: fit.cut };
}
