import type { BaseStore, GetOperation, Item, SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../../errors.js";
import { HIDDEN_NAMESPACE_ROOTS } from "../../store/hidden-namespaces.js";

/** How the inspector orders a list of memories. */
export const MEMORY_SORTS = ["updated-desc", "updated-asc", "created-desc", "created-asc", "key-asc", "key-desc", "relevance"] as const;
export type MemorySort = (typeof MEMORY_SORTS)[number];

/** Which part of a memory a filter string is matched against. */
export const FILTER_FIELDS = ["any", "text", "key", "namespace"] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/** Items read per search when the inspector scans a prefix. */
const SCAN_PAGE = 500;

/**
 * Most items one listing scans (to filter, sort or group them). Beyond this
 * the answer says `complete: false` and its total is a lower bound.
 */
export const SCAN_CAP = 20_000;

/** A page of a list: where it starts, how long it may be. */
export interface PageRequest {
  offset: number;
  limit: number;
}

/** Reads `offset` and `limit` from a query string; named errors for anything else than integers in range. */
export function pageParams(query: { offset?: unknown; limit?: unknown }, defaults: { limit: number; maxLimit?: number }): PageRequest {
  const maxLimit = defaults.maxLimit ?? 1000;
  const int = (raw: unknown, name: string, fallback: number, min: number, max: number) => {
    if (raw === undefined || raw === "") return fallback;
    const n = typeof raw === "number" ? raw : typeof raw === "string" && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return n;
  };
  return { offset: int(query.offset, "offset", 0, 0, 10_000_000), limit: int(query.limit, "limit", defaults.limit, 1, maxLimit) };
}

/** Checks a value against a list of allowed words. */
export function oneOf<T extends string>(raw: unknown, allowed: readonly T[], name: string, fallback: T): T {
  if (raw === undefined || raw === "") return fallback;
  if (typeof raw !== "string" || !(allowed as readonly string[]).includes(raw)) {
    throw new InvalidArgumentError(`${name} must be one of ${allowed.join(", ")}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

/** Reads an item without refreshing its TTL (looking at a memory must not extend its life). */
export async function peekItem(store: BaseStore, namespace: string[], key: string): Promise<Item | null> {
  const op: GetOperation & { refreshTtl: boolean } = { namespace, key, refreshTtl: false };
  const [item] = (await store.batch([op])) as [Item | null];
  return item ?? null;
}

/** Searches without refreshing the TTL of what is found. */
export async function peekSearch(
  store: BaseStore,
  prefix: string[],
  options: { query?: string; filter?: Record<string, unknown>; limit: number; offset?: number },
): Promise<SearchItem[]> {
  const op: SearchOperation & { refreshTtl: boolean } = { namespacePrefix: prefix, filter: options.filter, limit: options.limit, offset: options.offset ?? 0, query: options.query, refreshTtl: false };
  const [items] = (await store.batch([op])) as [SearchItem[]];
  return items;
}

/** Every item under `prefix` (ranked by `query` when given), up to {@link SCAN_CAP}; bookkeeping namespaces left out. */
export async function scanPrefix(store: BaseStore, prefix: string[], options: { query?: string; filter?: Record<string, unknown> } = {}): Promise<{ items: SearchItem[]; complete: boolean }> {
  const items: SearchItem[] = [];
  const seen = new Set<string>();
  for (let offset = 0; offset < SCAN_CAP; offset += SCAN_PAGE) {
    const page = await peekSearch(store, prefix, { query: options.query, filter: options.filter, limit: SCAN_PAGE, offset });
    for (const item of page) {
      // A prefix of [] covers the bookkeeping namespaces too; the inspector shows them only when asked by name.
      if (prefix.length === 0 && HIDDEN_NAMESPACE_ROOTS.includes(item.namespace[0])) continue;
      const id = JSON.stringify([item.namespace, item.key]);
      if (seen.has(id)) continue;
      seen.add(id);
      items.push(item);
    }
    if (page.length < SCAN_PAGE) return { items, complete: true };
  }
  return { items, complete: false };
}

/** The text the inspector shows for a value: `text`, else `content`, else the JSON. */
export const textOf = (v: Record<string, unknown>): string =>
  typeof v.text === "string" ? v.text : typeof v.content === "string" ? v.content : JSON.stringify(v);

/** Whether `item` contains `needle` (lower case) in `field`. */
export function matches(item: Item, needle: string, field: FilterField): boolean {
  if (needle === "") return true;
  const has = (s: string) => s.toLowerCase().includes(needle);
  const text = () => has(textOf(item.value));
  const key = () => has(item.key);
  const ns = () => has(item.namespace.join("."));
  if (field === "text") return text();
  if (field === "key") return key();
  if (field === "namespace") return ns();
  return text() || key() || ns();
}

const time = (d: Date | string) => new Date(d).getTime();
const byKey = (a: Item, b: Item) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || (a.namespace.join(".") < b.namespace.join(".") ? -1 : 1);

/** Sorts in place; `relevance` keeps the store's ranking. Ties are broken by key, so pages never overlap. */
export function sortItems(items: Item[], sort: MemorySort): void {
  const cmp: Record<MemorySort, ((a: Item, b: Item) => number) | undefined> = {
    "updated-desc": (a, b) => time(b.updatedAt) - time(a.updatedAt) || byKey(a, b),
    "updated-asc": (a, b) => time(a.updatedAt) - time(b.updatedAt) || byKey(a, b),
    "created-desc": (a, b) => time(b.createdAt) - time(a.createdAt) || byKey(a, b),
    "created-asc": (a, b) => time(a.createdAt) - time(b.createdAt) || byKey(a, b),
    "key-asc": byKey,
    "key-desc": (a, b) => byKey(b, a),
    relevance: undefined,
  };
  const f = cmp[sort];
  if (f) items.sort(f);
}
