import { Params } from "./sql.js";

const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith("$"));

/**
 * Translates a validated filter (see `filter.ts`) into SQL over the `value`
 * jsonb column, with the semantics of `matchesFilter`: dotted paths, `$eq`
 * and `$ne` by JSON equality (an absent path equals nothing), comparisons
 * only between two numbers or two strings, `$in`/`$nin` by equality with any
 * element, `$exists` on presence (a JSON `null` is present).
 */
export function filterSql(column: string, filter: Record<string, unknown> | undefined, params: Params): string {
  if (!filter) return "TRUE";
  const parts: string[] = [];
  for (const [path, condition] of Object.entries(filter)) {
    const at = `(${column} #> ${params.add(path.split("."))}::text[])`;
    if (!isOperatorObject(condition)) {
      parts.push(eq(at, condition, params));
      continue;
    }
    for (const [op, operand] of Object.entries(condition)) parts.push(operatorSql(at, op, operand, params));
  }
  return parts.length ? parts.join(" AND ") : "TRUE";
}

const json = (v: unknown, params: Params) => `${params.add(JSON.stringify(v))}::jsonb`;

/** Equality that is false (not NULL) when the path is absent. */
const eq = (at: string, v: unknown, params: Params) => `COALESCE(${at} = ${json(v, params)}, FALSE)`;

function compareSql(at: string, sqlOp: string, operand: unknown, params: Params): string {
  if (typeof operand === "number") {
    return `(jsonb_typeof(${at}) = 'number' AND (${at})::numeric ${sqlOp} ${params.add(operand)}::numeric)`;
  }
  if (typeof operand === "string") {
    return `(jsonb_typeof(${at}) = 'string' AND (${at} #>> '{}') COLLATE "C" ${sqlOp} ${params.add(operand)}::text COLLATE "C")`;
  }
  return "FALSE";
}

function operatorSql(at: string, op: string, operand: unknown, params: Params): string {
  switch (op) {
    case "$eq":
      return eq(at, operand, params);
    case "$ne":
      return `NOT ${eq(at, operand, params)}`;
    case "$gt":
      return compareSql(at, ">", operand, params);
    case "$gte":
      return compareSql(at, ">=", operand, params);
    case "$lt":
      return compareSql(at, "<", operand, params);
    case "$lte":
      return compareSql(at, "<=", operand, params);
    case "$in":
      return `COALESCE(${at} = ANY(${params.add((operand as unknown[]).map((o) => JSON.stringify(o)))}::jsonb[]), FALSE)`;
    case "$nin":
      return `NOT COALESCE(${at} = ANY(${params.add((operand as unknown[]).map((o) => JSON.stringify(o)))}::jsonb[]), FALSE)`;
    case "$exists":
      return operand ? `(${at} IS NOT NULL)` : `(${at} IS NULL)`;
    default:
      return "FALSE";
  }
}
