import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { InvalidNamespaceError, MissingConfigError } from "../errors.js";
import { howToPass, runValue } from "./run-values.js";

/**
 * A namespace whose labels may hold `{placeholders}` filled from
 * `config.configurable` at run time, e.g. `["users", "{user_id}"]`.
 * A namespace with no placeholders (`["team", "support"]`) is a fixed, shared
 * scope.
 */
export type NamespaceTemplate = readonly string[];

const PLACEHOLDER = /\{([A-Za-z0-9_$-]+)\}/g;
/**
 * Characters that namespaces reject, `*` (a wildcard in `listNamespaces`
 * match conditions, so a user id `*` must not list every user), plus `%`
 * itself so decoding is exact.
 */
const RESERVED = /[%.:*\u0000]/g;

/**
 * Encodes an id so that it is always a valid namespace label and never a
 * `listNamespaces` wildcard. The encoding is reversible ({@link decodeLabel}):
 * `"ann.lee@x.com"` → `"ann%2Elee@x%2Ecom"`, `"*"` → `"%2A"`.
 */
export function encodeLabel(value: string): string {
  return value.replace(RESERVED, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/** Inverse of {@link encodeLabel}. */
export function decodeLabel(label: string): string {
  return label.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The placeholder a whole label is (`"{user_id}"` → `"user_id"`), else undefined. */
export function placeholderName(label: string): string | undefined {
  return /^\{([A-Za-z0-9_$-]+)\}$/.exec(label)?.[1];
}

/** The names of the placeholders a template uses, e.g. `["user_id"]`. */
export function templateKeys(template: NamespaceTemplate): string[] {
  const keys = new Set<string>();
  for (const label of template) for (const m of label.matchAll(PLACEHOLDER)) keys.add(m[1]);
  return [...keys];
}

/**
 * Refuses a label with two placeholders (`"{org}-{user_id}"`): org "a-b" with
 * user "c" and org "a" with user "b-c" would both give `"a-b-c"`, sharing one
 * namespace. One placeholder per label keeps tenants apart.
 */
function checkPlaceholders(template: NamespaceTemplate): void {
  for (const label of template) {
    if (typeof label !== "string") continue;
    const found = [...label.matchAll(PLACEHOLDER)].map((m) => m[0]);
    if (found.length > 1) {
      throw new InvalidNamespaceError(
        `namespace template ${JSON.stringify(template)}: label '${label}' has ${found.length} placeholders (${found.join(", ")}); ` +
          `two values in one label can collide (org "a-b" + user "c" and org "a" + user "b-c" both give "a-b-c"). ` +
          `Put each placeholder in its own label, e.g. ${JSON.stringify(found)}.`,
      );
    }
  }
}

/**
 * Fills a namespace template from the run: each `{key}` from the run's
 * `context`, else `config.configurable` (see {@link runValue} for the
 * precedence; `{langgraph_auth_user_id}` comes from the server only).
 *
 * @throws {MissingConfigError} when a placeholder's value is missing or empty.
 *   Nothing is read or written in that case: there is no fallback namespace.
 * @throws {InvalidNamespaceError} when the template is not a non-empty array,
 *   or a label holds two placeholders.
 */
export function resolveNamespace(template: NamespaceTemplate, config?: LangGraphRunnableConfig): string[] {
  if (!Array.isArray(template) || template.length === 0) {
    throw new InvalidNamespaceError(`namespace template must be a non-empty array of labels, got ${JSON.stringify(template)}`);
  }
  checkPlaceholders(template);
  return template.map((label) =>
    label.replace(PLACEHOLDER, (_match: string, key: string) => {
      const { value, source } = runValue(config, key);
      if (source === undefined) {
        throw new MissingConfigError(
          `memory namespace ${JSON.stringify(template)} needs ${key} (from the run's context or config.configurable), but the run has none. ` +
            howToPass(key),
        );
      }
      if (typeof value !== "string" && typeof value !== "number") {
        throw new MissingConfigError(`${source === "context" ? "context" : "config.configurable"}.${key} must be a string or number, got ${typeof value}`);
      }
      return encodeLabel(String(value));
    }),
  );
}

/** The run's `config.configurable.thread_id` as a string, if it has one. */
export function threadIdOf(config?: LangGraphRunnableConfig): string | undefined {
  const id = (config?.configurable as Record<string, unknown> | undefined)?.thread_id;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}
