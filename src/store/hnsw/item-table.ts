import type { Item } from "@langchain/langgraph-checkpoint";
import { namespaceKey } from "../namespace.js";
import type { ItemRecord } from "../item-record.js";

/** An item as the store keeps it in memory. */
export interface StoredItem extends ItemRecord {
  /** `namespaceKey + "\n" + key`: unique, and never ambiguous. */
  id: string;
  /** The item's vectors: label in the vector index, and the field it came from. */
  vectors: { label: number; field: string }[];
  /** Id of the item's {@link NamespaceGroup} (set by the table; never persisted). */
  gid?: number;
}

export interface NamespaceGroup {
  /** A small integer, unique among the table's live groups (reused after a group empties). */
  id: number;
  namespace: string[];
  items: Map<string, StoredItem>;
}

/** One label of the namespace tree: the group whose namespace ends here, and the items at or below it. */
interface PrefixNode {
  children: Map<string, PrefixNode>;
  group?: NamespaceGroup;
  /** Items in this node's group and every group below it. */
  count: number;
}

const newNode = (): PrefixNode => ({ children: new Map(), count: 0 });

export const itemId = (namespace: readonly string[], key: string): string => `${namespaceKey(namespace)}\n${key}`;

/**
 * Items grouped by namespace, so that a prefix selects whole groups. The
 * groups also hang in a tree of labels, so finding the groups under a prefix
 * (and counting their items) costs what is under the prefix, not the number
 * of namespaces in the store.
 */
export class ItemTable {
  private groups = new Map<string, NamespaceGroup>();
  private ids = new Map<string, StoredItem>();
  private root = newNode();
  private freeGroupIds: number[] = [];
  private nextGroupId = 0;

  get size(): number {
    return this.ids.size;
  }

  /** The item with this {@link itemId}. */
  byId(id: string): StoredItem | undefined {
    return this.ids.get(id);
  }

  /** The group of items stored exactly under `namespace`. */
  group(namespace: readonly string[]): NamespaceGroup | undefined {
    return this.groups.get(namespaceKey(namespace));
  }

  get(namespace: readonly string[], key: string): StoredItem | undefined {
    return this.groups.get(namespaceKey(namespace))?.items.get(key);
  }

  set(item: StoredItem): void {
    const nsKey = namespaceKey(item.namespace);
    let group = this.groups.get(nsKey);
    if (!group) {
      const id = this.freeGroupIds.pop() ?? this.nextGroupId++;
      this.groups.set(nsKey, (group = { id, namespace: item.namespace, items: new Map() }));
      this.nodeFor(item.namespace, true)!.group = group;
    }
    item.gid = group.id;
    const added = !group.items.has(item.key);
    group.items.set(item.key, item);
    this.ids.set(item.id, item);
    if (added) this.adjustCounts(item.namespace, 1);
  }

  /**
   * Adds items of one namespace at once (a snapshot's run of items): the
   * group and the label tree are looked up once, not per item.
   */
  setMany(namespace: string[], items: readonly StoredItem[]): void {
    const nsKey = namespaceKey(namespace);
    let group = this.groups.get(nsKey);
    if (!group) {
      const id = this.freeGroupIds.pop() ?? this.nextGroupId++;
      this.groups.set(nsKey, (group = { id, namespace, items: new Map() }));
      this.nodeFor(namespace, true)!.group = group;
    }
    const map = group.items;
    let added = 0;
    for (const item of items) {
      item.gid = group.id;
      if (!map.has(item.key)) added++;
      map.set(item.key, item);
      this.ids.set(item.id, item);
    }
    if (added) this.adjustCounts(namespace, added);
  }

  delete(namespace: readonly string[], key: string): StoredItem | undefined {
    const nsKey = namespaceKey(namespace);
    const group = this.groups.get(nsKey);
    const item = group?.items.get(key);
    if (!group || !item) return undefined;
    group.items.delete(key);
    this.ids.delete(item.id);
    this.adjustCounts(namespace, -1);
    if (group.items.size === 0) {
      this.groups.delete(nsKey);
      this.freeGroupIds.push(group.id);
      this.nodeFor(namespace, false)!.group = undefined;
      this.prune(namespace);
    }
    return item;
  }

  /** Number of items under `prefix` (whole labels), in time proportional to its length. */
  countUnder(prefix: readonly string[]): number {
    return this.nodeFor(prefix, false)?.count ?? 0;
  }

  /** Namespace groups under `prefix` (whole labels), found through the label tree. */
  groupsUnder(prefix: readonly string[]): NamespaceGroup[] {
    if (prefix.length === 0) return [...this.groups.values()];
    const node = this.nodeFor(prefix, false);
    const out: NamespaceGroup[] = [];
    const stack = node ? [node] : [];
    while (stack.length) {
      const n = stack.pop()!;
      if (n.group) out.push(n.group);
      for (const child of n.children.values()) stack.push(child);
    }
    return out;
  }

  private nodeFor(namespace: readonly string[], create: boolean): PrefixNode | undefined {
    let node = this.root;
    for (const label of namespace) {
      let next = node.children.get(label);
      if (!next) {
        if (!create) return undefined;
        node.children.set(label, (next = newNode()));
      }
      node = next;
    }
    return node;
  }

  private adjustCounts(namespace: readonly string[], by: number): void {
    let node = this.root;
    node.count += by;
    for (const label of namespace) {
      node = node.children.get(label)!;
      node.count += by;
    }
  }

  /** Removes the tree nodes of `namespace` that no longer hold any item. */
  private prune(namespace: readonly string[]): void {
    const path: PrefixNode[] = [this.root];
    for (const label of namespace) path.push(path[path.length - 1]!.children.get(label)!);
    for (let i = namespace.length; i > 0; i--) {
      if (path[i]!.count > 0 || path[i]!.group) break;
      path[i - 1]!.children.delete(namespace[i - 1]!);
    }
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
