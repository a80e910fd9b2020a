import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { hiddenFromListing } from "./hidden-namespaces.js";
import { compareNamespaces, matchesCondition, namespaceKey } from "./namespace.js";

/**
 * The `listNamespaces` rule every store of the package follows, given the
 * namespaces that hold at least one live item: filtered by the match
 * conditions (`*` matches any one label), bookkeeping namespaces left out
 * unless a prefix condition names their root ({@link hiddenFromListing}),
 * truncated to `maxDepth`, de-duplicated, sorted label by label, then paged
 * (`limit` 100 by default).
 */
export function listingOf(liveNamespaces: Iterable<readonly string[]>, op: ListNamespacesOperation): string[][] {
  const seen = new Map<string, string[]>();
  for (const ns of liveNamespaces) {
    if (op.matchConditions?.some((c) => !matchesCondition(ns, c))) continue;
    if (hiddenFromListing(ns, op.matchConditions)) continue;
    const out = op.maxDepth !== undefined ? ns.slice(0, op.maxDepth) : [...ns];
    seen.set(namespaceKey(out), out);
  }
  const offset = op.offset ?? 0;
  return [...seen.values()].sort(compareNamespaces).slice(offset, offset + (op.limit ?? 100));
}
