import type { LangGraphRunnableConfig } from "@langchain/langgraph";

/**
 * The placeholder for the user that the LangGraph server authenticated. The
 * server sets `config.configurable.langgraph_auth_user_id` from your `Auth`
 * handler's identity; the value is read from there ONLY (never from the
 * run's `context`, which a client chooses), so `["users", "{langgraph_auth_user_id}"]`
 * cannot be pointed at someone else by a request.
 */
export const AUTH_USER_PLACEHOLDER = "langgraph_auth_user_id";

/** Where a placeholder's value was found. */
export type RunValueSource = "context" | "configurable";

/**
 * The value a namespace placeholder takes in a run, and where it came from.
 *
 * Precedence, for a placeholder `{key}`:
 * 1. the run's `context` (LangGraph v1 runtime context:
 *    `graph.invoke(input, { context: { user_id } })`), then
 * 2. `config.configurable` (`graph.invoke(input, { configurable: { user_id } })`).
 *
 * `{langgraph_auth_user_id}` is read from `config.configurable` only (see
 * {@link AUTH_USER_PLACEHOLDER}). Empty strings, `null` and `undefined` count
 * as missing.
 */
export function runValue(config: LangGraphRunnableConfig | undefined, key: string): { value: unknown; source?: RunValueSource } {
  const present = (v: unknown) => v !== undefined && v !== null && v !== "";
  if (key !== AUTH_USER_PLACEHOLDER) {
    const context = config?.context as Record<string, unknown> | undefined;
    if (context && typeof context === "object" && present(context[key])) return { value: context[key], source: "context" };
  }
  const configurable = config?.configurable as Record<string, unknown> | undefined;
  if (configurable && present(configurable[key])) return { value: configurable[key], source: "configurable" };
  return { value: undefined };
}

/** How a run can supply `{key}`, for error messages. */
export function howToPass(key: string): string {
  if (key === AUTH_USER_PLACEHOLDER) {
    return "It is set by the LangGraph server for authenticated requests (configure `auth` in langgraph.json); " +
      `outside the server pass it as graph.invoke(input, { configurable: { ${key}: "..." } }).`;
  }
  return `Pass it from your authentication layer, e.g. graph.invoke(input, { context: { ${key}: "..." } }) ` +
    `or graph.invoke(input, { configurable: { ${key}: "..." } }).`;
}
