import { InvalidNamespaceError } from "../errors.js";
import type { MatchCondition } from "@langchain/langgraph-checkpoint";

/**
 * Namespace rules, as `validateNamespace` from `@langchain/langgraph-checkpoint`
 * defines them, except that `:` is allowed: this store never joins labels
 * into strings (namespaces are stored as JSON arrays), so `:` and `/` can
 * never make two namespaces collide.
 *
 * - labels are non-empty strings without `.` or NUL;
 * - a namespace that is written to is non-empty and does not start with the
 *   reserved root label `langgraph`.
 */
export function validateNamespace(namespace: unknown, options: { forWrite?: boolean; what?: string } = {}): asserts namespace is string[] {
  const what = options.what ?? "namespace";
  if (!Array.isArray(namespace)) {
    throw new InvalidNamespaceError(`${what} must be an array of string labels, got ${describe(namespace)}`);
  }
  if (namespace.length === 0 && options.forWrite) {
    throw new InvalidNamespaceError(`${what} cannot be empty`);
  }
  for (const label of namespace) {
    if (typeof label !== "string") {
      throw new InvalidNamespaceError(`${what} label ${describe(label)} in ${JSON.stringify(namespace)} must be a string, got ${typeof label}`);
    }
    if (label === "") throw new InvalidNamespaceError(`${what} ${JSON.stringify(namespace)} has an empty label`);
    if (label.includes(".")) throw new InvalidNamespaceError(`${what} label '${label}' contains '.'`);
    if (label.includes("\0")) throw new InvalidNamespaceError(`${what} label ${JSON.stringify(label)} contains a NUL byte`);
  }
  if (options.forWrite && namespace[0] === "langgraph") {
    throw new InvalidNamespaceError(`${what} ${JSON.stringify(namespace)} starts with the reserved root label 'langgraph'`);
  }
}

function describe(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A collision-free string key for a namespace (its JSON encoding). */
export const namespaceKey = (namespace: readonly string[]): string => JSON.stringify(namespace);

/** True when `prefix` matches `namespace` label by label (whole labels only). */
export function hasPrefix(namespace: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > namespace.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== namespace[i]) return false;
  return true;
}

/** Evaluates a listNamespaces match condition; `*` matches any one label. */
export function matchesCondition(namespace: readonly string[], condition: MatchCondition): boolean {
  const { path, matchType } = condition;
  if (path.length > namespace.length) return false;
  const start = matchType === "suffix" ? namespace.length - path.length : 0;
  return path.every((label, i) => label === "*" || label === namespace[start + i]);
}

/** Orders namespaces label by label (so `["a"]` < `["a","b"]` < `["b"]`). */
export function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}
