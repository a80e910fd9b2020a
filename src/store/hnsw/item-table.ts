import type { Item } from "@langchain/langgraph-checkpoint";
import { hasPrefix, namespaceKey } from "../namespace.js";

/** An item as the store keeps it in memory. */
export interface StoredItem {
  /** `namespaceKey + "\n" + key`: unique, and never ambiguous. */
  id: string;
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  /** Expiry (ms since epoch); undefined = never. */
  expiresAt?: number;
  /** TTL in minutes, for refresh-on-read. */
  ttl?: number;
  /** The put's index override; undefined = the store's fields. */
  index?: false | string[];
  /** The item's vectors: label in the vector index, and the field it came from. */
  vectors: { label: number; field: string }[];
}

export interface NamespaceGroup {
  namespace: string[];
  items: Map<string, StoredItem>;
}

export const itemId = (namespace: readonly string[], key: string): string => `${namespaceKey(namespace)}\n${key}`;

/** Items grouped by namespace, so that a prefix selects whole groups. */
export class ItemTable {
  private groups = new Map<string, NamespaceGroup>();
  private ids = new Map<string, StoredItem>();

  get size(): number {
    return this.ids.size;
  }

  /** The item with this {@link itemId}. */
  byId(id: string): StoredItem | undefined {
    return this.ids.get(id);
  }

  get(namespace: readonly string[], key: string): StoredItem | undefined {
    return this.groups.get(namespaceKey(namespace))?.items.get(key);
  }

  set(item: StoredItem): void {
    const nsKey = namespaceKey(item.namespace);
    let group = this.groups.get(nsKey);
    if (!group) this.groups.set(nsKey, (group = { namespace: item.namespace, items: new Map() }));
    group.items.set(item.key, item);
    this.ids.set(item.id, item);
  }

  delete(namespace: readonly string[], key: string): StoredItem | undefined {
    const nsKey = namespaceKey(namespace);
    const group = this.groups.get(nsKey);
    const item = group?.items.get(key);
    if (!group || !item) return undefined;
    group.items.delete(key);
    this.ids.delete(item.id);
    if (group.items.size === 0) this.groups.delete(nsKey);
    return item;
  }

  /** Namespace groups under `prefix` (whole labels). */
  groupsUnder(prefix: readonly string[]): NamespaceGroup[] {
    if (prefix.length === 0) return [...this.groups.values()];
    const exact = this.groups.get(namespaceKey(prefix));
    const out: NamespaceGroup[] = [];
    for (const group of this.groups.values()) {
      if (group === exact || (group.namespace.length > prefix.length && hasPrefix(group.namespace, prefix))) out.push(group);
    }
    return out;
  }

  groupsAll(): IterableIterator<NamespaceGroup> {
    return this.groups.values();
  }

  *items(): IterableIterator<StoredItem> {
    for (const group of this.groups.values()) yield* group.items.values();
  }
}

/** The public `Item` for a stored item: copies, with `Date` timestamps. */
export function toItem(item: { namespace: string[]; key: string; value: Record<string, unknown>; createdAt: number; updatedAt: number }): Item {
  return {
    namespace: [...item.namespace],
    key: item.key,
    value: structuredClone(item.value),
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
  };
}
