import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import type { ItemTable } from "./item-table.js";
import { compareNamespaces, matchesCondition, namespaceKey } from "../namespace.js";
import { hiddenFromListing } from "../hidden-namespaces.js";

/**
 * Namespaces that hold at least one live item, filtered by the match
 * conditions (`*` matches any one label), truncated to `maxDepth`,
 * de-duplicated, sorted label by label, then paged. The extractor's cursor
 * namespaces are left out unless a prefix condition names their root
 * (see hiddenFromListing).
 */
export function listNamespaces(items: ItemTable, op: ListNamespacesOperation, now: number): string[][] {
  const seen = new Map<string, string[]>();
  for (const group of items.groupsAll()) {
    const ns = group.namespace;
    if (op.matchConditions?.some((c) => !matchesCondition(ns, c))) continue;
    if (hiddenFromListing(ns, op.matchConditions)) continue;
    // A group still pending from the snapshot answers from its expiries, undecoded.
    let live = group.hasLive(now);
    if (live === undefined) {
      live = false;
      for (const item of group.items.values()) {
        if (item.expiresAt === undefined || item.expiresAt > now) {
          live = true;
          break;
        }
      }
    }
    if (!live) continue;
    const out = op.maxDepth !== undefined ? ns.slice(0, op.maxDepth) : ns;
    seen.set(namespaceKey(out), [...out]);
  }
  const offset = op.offset ?? 0;
  const limit = op.limit ?? 100;
  return [...seen.values()].sort(compareNamespaces).slice(offset, offset + limit);
}
