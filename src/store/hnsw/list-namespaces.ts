import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import type { ItemTable } from "./item-table.js";
import { listingOf } from "../namespace-listing.js";

/** `listNamespaces` over the namespaces that hold at least one live item (the rule: {@link listingOf}). */
export function listNamespaces(items: ItemTable, op: ListNamespacesOperation, now: number): string[][] {
  return listingOf(liveNamespaces(items, now), op);
}

function* liveNamespaces(items: ItemTable, now: number): Iterable<readonly string[]> {
  for (const group of items.groupsAll()) {
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
    if (live) yield group.namespace;
  }
}
