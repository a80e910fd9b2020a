import { InvalidArgumentError } from "../errors.js";
import { resolveNamespace, type NamespaceTemplate } from "./namespace-template.js";

/** Placeholder values for {@link memoryNamespace}, e.g. `{ user_id: "alice@example.com" }`. */
export type NamespaceValues = Readonly<Record<string, string | number>>;

/**
 * The namespace a template resolves to for the given values, encoded exactly
 * as the nodes, tools and middleware encode it at run time. Use it to address
 * a user's memories from app code:
 *
 * @example
 * ```ts
 * const ns = memoryNamespace(["users", "{user_id}"], { user_id: "alice@example.com" });
 * // ["users", "alice@example%2Ecom"]
 * await store.search(ns, { query: "diet" });
 * ```
 *
 * @throws {MissingConfigError} when a placeholder has no value.
 */
export function memoryNamespace(template: NamespaceTemplate, values: NamespaceValues): string[] {
  if (!values || typeof values !== "object") {
    throw new InvalidArgumentError(`memoryNamespace needs placeholder values such as { user_id: "42" }, got ${JSON.stringify(values)}`);
  }
  return resolveNamespace(template, { configurable: { ...values } });
}
