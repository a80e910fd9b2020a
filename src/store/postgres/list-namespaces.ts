import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { compareNamespaces, matchesCondition } from "../namespace.js";
import { liveSql, nsLabels, Params, scopeSql, type Queryable, type Tables } from "./sql.js";

/**
 * Namespaces with a live item, filtered by the match conditions (`*`
 * matches any one label), cut to `maxDepth`, de-duplicated, sorted label
 * by label, then paged. A prefix condition's leading labels narrow the
 * query by whole labels.
 */
export async function listNamespaces(db: Queryable, t: Tables, op: ListNamespacesOperation, now: number): Promise<string[][]> {
  const prefixCond = op.matchConditions?.find((c) => c.matchType === "prefix");
  const lead: string[] = [];
  for (const label of prefixCond?.path ?? []) {
    if (label === "*") break;
    lead.push(label);
  }
  const p = new Params();
  const r = await db.query<{ ns: string }>(
    `SELECT DISTINCT i.ns FROM ${t.items} i WHERE ${scopeSql("i.ns", lead, p)} AND ${liveSql("i", now, p)}`,
    p.values,
  );
  const seen = new Map<string, string[]>();
  for (const row of r.rows) {
    const ns = nsLabels(row.ns);
    if (op.matchConditions?.some((c) => !matchesCondition(ns, c))) continue;
    const out = op.maxDepth !== undefined ? ns.slice(0, op.maxDepth) : ns;
    seen.set(JSON.stringify(out), out);
  }
  const offset = op.offset ?? 0;
  return [...seen.values()].sort(compareNamespaces).slice(offset, offset + (op.limit ?? 100));
}
