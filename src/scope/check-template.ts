import { resolveNamespace, type NamespaceTemplate } from "./namespace-template.js";

/**
 * Checks a namespace template's shape when a node or tool is built, before
 * any run: it must be a non-empty array of labels. Placeholder values are
 * only known per run, so they are filled with a dummy here.
 *
 * @throws {InvalidNamespaceError} naming the bad template.
 */
export function checkTemplate(template: NamespaceTemplate): void {
  resolveNamespace(template, { configurable: new Proxy({}, { get: () => "x" }) });
}
