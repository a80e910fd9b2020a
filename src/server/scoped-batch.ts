import type { BaseStore, Item, ListNamespacesOperation, Operation, PutOperation, SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { validateNamespace } from "../store/namespace.js";
import { validateValue } from "../store/validate-value.js";
import { itemToWire, operationKind, type WireResult } from "../store/remote/wire.js";
import { checkResultBudget } from "./response-limits.js";
import type { RequestScope } from "./scope.js";

export interface BatchLimits {
  maxLimit: number;
  /** Most results the whole batch may return (see `checkResultBudget`). */
  maxResults: number;
}

function checkLimit(name: string, value: number | undefined, max: number): void {
  if (value !== undefined && value > max) throw new InvalidArgumentError(`${name} ${value} is larger than this server's maximum ${max}`);
}

/**
 * Runs operations, as the caller sent them, in one batch of the store,
 * confined to the caller's scope: every namespace is checked as sent, then
 * prefixed with the scope's root (an end user's `langgraph/…` lands under
 * their own root); results are stripped of it.
 */
export async function runScoped(store: BaseStore, scope: RequestScope, operations: Operation[], limits: BatchLimits): Promise<WireResult[]> {
  const kinds = operations.map(operationKind);
  const scoped = operations.map((op, i): Operation => {
    switch (kinds[i]) {
      case "put": {
        const p = op as PutOperation;
        // As BaseStore.batch: the reserved root is refused by put() (PUT /store/items), not by a batch.
        validateNamespace(p.namespace);
        if (p.value !== null) validateValue(p.value, `operation ${i} (put) at ${JSON.stringify(p.namespace)}/${p.key}`);
        return { ...p, namespace: scope.toStore(p.namespace) };
      }
      case "get": {
        const g = op as { namespace: string[]; key: string };
        validateNamespace(g.namespace);
        return { ...g, namespace: scope.toStore(g.namespace) };
      }
      case "search": {
        const s = op as SearchOperation;
        validateNamespace(s.namespacePrefix, { what: "namespace prefix" });
        checkLimit("limit", s.limit, limits.maxLimit);
        return { ...s, namespacePrefix: scope.toStore(s.namespacePrefix) };
      }
      default: {
        const l = op as ListNamespacesOperation;
        for (const c of l.matchConditions ?? []) validateNamespace(c.path, { what: `${c.matchType} condition` });
        checkLimit("limit", l.limit, limits.maxLimit);
        const maxDepth = l.maxDepth === undefined ? undefined : l.maxDepth + scope.root.length;
        return { ...l, matchConditions: scope.conditions(l.matchConditions), maxDepth };
      }
    }
  });
  checkResultBudget(operations, limits.maxResults);
  const results = (await store.batch(scoped)) as unknown[];
  return results.map((r, i): WireResult => {
    switch (kinds[i]) {
      case "put":
        return null;
      case "get":
        return r ? itemToWire(r as Item, scope.fromStore) : null;
      case "search":
        return (r as SearchItem[]).map((item) => itemToWire(item, scope.fromStore));
      default:
        return (r as string[][]).map(scope.fromStore).filter((ns) => ns.length > 0);
    }
  });
}
