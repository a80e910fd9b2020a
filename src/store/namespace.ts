import { InvalidNamespaceError } from "../errors.js";
import { MAX_NAMESPACE_BYTES, textProblem, utf8Bytes } from "./text-rules.js";
import type { MatchCondition } from "@langchain/langgraph-checkpoint";

/**
 * LangGraph's own wording for each namespace rule (`validateNamespace` in
 * `@langchain/langgraph-checkpoint`). Our messages lead with these exact
 * sentences, so code and test suites that match on LangGraph's text keep
 * working, and add the offending value after them.
 */
export const NAMESPACE_MESSAGES = {
  empty: "Namespace cannot be empty.",
  notString: "Namespace labels must be strings.",
  period: "Namespace labels cannot contain periods ('.').",
  emptyLabel: "Namespace labels cannot be empty strings.",
  nul: "Namespace labels cannot contain NUL bytes.",
  reservedRoot: 'Root label for namespace cannot be "langgraph".',
} as const;

/** Options of {@link validateNamespace}. */
export interface ValidateNamespaceOptions {
  /**
   * The namespace is written to, so it must not be empty.
   * @default false
   */
  forWrite?: boolean;
  /**
   * Accept the reserved root label `langgraph` even for a write. LangGraph's
   * contract refuses that root in `put()` only: `batch()` lets the framework
   * write under its own root.
   * @default false
   */
  allowReservedRoot?: boolean;
  /**
   * What the namespace is, in messages.
   * @default "namespace"
   */
  what?: string;
}

/**
 * Namespace rules, as `validateNamespace` from `@langchain/langgraph-checkpoint`
 * defines them, except that `:` is allowed: this store never joins labels
 * into strings (namespaces are stored as JSON arrays), so `:` and `/` can
 * never make two namespaces collide.
 *
 * - labels are non-empty strings without `.`, NUL or lone surrogates
 *   ({@link textProblem}), and the whole namespace is at most
 *   {@link MAX_NAMESPACE_BYTES} bytes;
 * - a namespace that is written to is non-empty and (unless
 *   `allowReservedRoot`) does not start with the reserved root label `langgraph`.
 *
 * Each message starts with LangGraph's sentence ({@link NAMESPACE_MESSAGES}),
 * then says which label of which namespace broke the rule.
 */
export function validateNamespace(namespace: unknown, options: ValidateNamespaceOptions = {}): asserts namespace is string[] {
  const what = options.what ?? "namespace";
  const M = NAMESPACE_MESSAGES;
  if (!Array.isArray(namespace)) {
    throw new InvalidNamespaceError(`${M.notString} ${what} must be an array of string labels, got ${describe(namespace)}`);
  }
  if (namespace.length === 0 && options.forWrite) {
    throw new InvalidNamespaceError(`${M.empty} ${what} cannot be empty`);
  }
  for (const label of namespace) {
    if (typeof label !== "string") {
      throw new InvalidNamespaceError(`${M.notString} ${what} label ${describe(label)} in ${describe(namespace)} must be a string, got ${typeof label}`);
    }
    if (label === "") throw new InvalidNamespaceError(`${M.emptyLabel} ${what} ${JSON.stringify(namespace)} has an empty label`);
    if (label.includes(".")) throw new InvalidNamespaceError(`${M.period} ${what} label '${label}' contains '.'`);
    if (label.includes("\0")) throw new InvalidNamespaceError(`${M.nul} ${what} label ${JSON.stringify(label)} contains a NUL byte`);
    const problem = textProblem(label);
    if (problem) throw new InvalidNamespaceError(`${what} label ${JSON.stringify(label)} ${problem}`);
  }
  const bytes = namespace.reduce((n: number, label: string) => n + utf8Bytes(label), Math.max(0, namespace.length - 1));
  if (bytes > MAX_NAMESPACE_BYTES) {
    throw new InvalidNamespaceError(`${what} ${JSON.stringify(namespace).slice(0, 80)}… is ${bytes} bytes in UTF-8 (labels joined with '.'); the limit is ${MAX_NAMESPACE_BYTES} (MAX_NAMESPACE_BYTES)`);
  }
  if (options.forWrite && !options.allowReservedRoot && namespace[0] === "langgraph") {
    throw new InvalidNamespaceError(`${M.reservedRoot} ${what} ${JSON.stringify(namespace)} starts with the reserved root label 'langgraph'`);
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
