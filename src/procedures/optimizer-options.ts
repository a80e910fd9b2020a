import { checkBoolean, checkHasMethods, checkKnownKeys, checkNumber, checkObject, checkOptions, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { ProcedureOptimizerOptions } from "./optimizer.js";

/**
 * The shape checks of `new ProcedureOptimizer(options)`, before its own
 * range checks: the options object and its nested `limits` and `prompts`
 * have only known keys, and every option that is given has its type
 * (`null` is never "the default"). Throws `InvalidOptionError` naming the
 * option (`UnknownOptionError` with the near miss for an unknown key).
 */
export function checkOptimizerOptions(options: ProcedureOptimizerOptions): void {
  checkOptions(options, "ProcedureOptimizer options", OPTION_KEYS.procedureOptimizer, { optional: false });
  checkNumber(options.retryDelaySeconds, "retryDelaySeconds", { min: 0, max: 86_400 });
  checkObject(options.limits, "limits");
  checkKnownKeys(options.limits, OPTION_KEYS.procedureLimits, "limits.");
  checkBoolean(options.rejectUnsafe, "rejectUnsafe");
  checkObject(options.prompts, "prompts");
  checkKnownKeys(options.prompts, ["metaprompt", "critique", "edit"], "prompts.");
  for (const name of ["metaprompt", "critique", "edit"] as const) checkString(options.prompts?.[name], `prompts.${name}`);
  checkHasMethods(options.logger, "logger", ["warn", "error"]);
}
