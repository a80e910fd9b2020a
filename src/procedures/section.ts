import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { checkHasMethods, checkKnownKeys, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { escapePromptText } from "../prompt/prompt-text.js";
import { resolveStore } from "../scope/resolve-store.js";
import { runValue } from "../scope/run-values.js";
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
   * Token budget (estimated, 4 characters a token) of the section; lines past
   * it are left out, the user's last.
   * @default 1000
   */
  maxTokens?: number;
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
  if (options.userKey !== false) {
    const { value } = runValue(run.config, options.userKey ?? "user_id");
    if (typeof value === "string" || typeof value === "number") user = await getProcedure(store, { agentId: options.agentId, userId: String(value), ...name });
  }
  if (!agent && !user) return undefined;
  const budget = (options.maxTokens ?? 1000) * 4;
  const lines = [LEARNED_INSTRUCTIONS_HEADER, LEARNED_INSTRUCTIONS_PREAMBLE];
  let size = lines.join("\n").length;
  // Adds lines while they fit; `atomic` lines come together or not at all.
  const add = (more: string[], atomic: number) => {
    const head = more.slice(0, atomic).reduce((n, l) => n + l.length + 1, 0);
    if (size + head > budget) return false;
    for (const line of more) {
      if (size + line.length + 1 > budget) return false;
      lines.push(line);
      size += line.length + 1;
    }
    return true;
  };
  // Stored instructions are escaped (role tags and the package's headers neutralised) before they join the section.
  const agentDone = agent ? add(escapePromptText(agent.instructions).split("\n"), 1) : true;
  if (agentDone && user) add(["For this user:", ...escapePromptText(user.instructions).split("\n")], 2);
  return lines.length > 2 ? lines.join("\n") : undefined;
}
