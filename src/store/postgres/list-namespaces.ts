import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { listingOf } from "../namespace-listing.js";
import { liveSql, nsLabels, Params, scopeSql, type Queryable, type Tables } from "./sql.js";

/**
 * `listNamespaces` over the namespaces with a live item, by the rule every
 * store shares ({@link listingOf}: conditions, hidden bookkeeping roots,
 * maxDepth, order, paging). A prefix condition's leading labels narrow the
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
  return listingOf(
    r.rows.map((row) => nsLabels(row.ns)),
    op,
  );
}
