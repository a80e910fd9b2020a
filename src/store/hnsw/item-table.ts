import type { Item } from "@langchain/langgraph-checkpoint";
import { namespaceKey } from "../namespace.js";
import type { ItemRecord } from "../item-record.js";
import type { TimeSlicer } from "../../time-slice.js";
import { cloneJson } from "../clone-json.js";

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
  /** `namespaceKey(namespace)`. */
  nsKey: string;
  /** The group's items by key (a group loaded from a snapshot decodes them on first use). */
  readonly items: Map<string, StoredItem>;
  /** False when no item of the group can have expired by `now` (answered without decoding it). */
  mayHaveExpired(now: number): boolean;
  /** Whether an item of the group is live at `now`, when known without decoding it (a pending group); else undefined. */
  hasLive(now: number): boolean | undefined;
}

/** A group of items a snapshot holds, decoded when first used. */
export interface PendingGroup {
  namespace: string[];
  /** How many items it holds. */
  count: number;
  /** Earliest and latest expiry of its items (Infinity: one never expires). */
  firstExpiry: number;
  lastExpiry: number;
  /** Decodes its items (once). */
  decode(): StoredItem[];
}

class TableGroup implements NamespaceGroup {
  private map?: Map<string, StoredItem>;

  constructor(
    readonly id: number,
    readonly namespace: string[],
    readonly nsKey: string,
    private pending?: PendingGroup,
    /** Called once with the items of a pending group, when they are decoded. */
    private readonly onDecoded?: (items: StoredItem[]) => void,
  ) {}

  get items(): Map<string, StoredItem> {
    if (!this.map) {
      const map = new Map<string, StoredItem>();
      const items = this.pending?.decode() ?? [];
      for (const item of items) {
        item.gid = this.id;
        map.set(item.key, item);
      }
      this.map = map;
      this.pending = undefined;
      if (items.length) this.onDecoded?.(items);
    }
    return this.map;
  }

  /** Whether its items are decoded (or it never was pending). */
  get decoded(): boolean {
    return this.map !== undefined;
  }

  mayHaveExpired(now: number): boolean {
    return this.pending ? this.pending.firstExpiry <= now : true;
  }

  hasLive(now: number): boolean | undefined {
    return this.pending ? this.pending.count > 0 && this.pending.lastExpiry > now : undefined;
  }
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
  private groups = new Map<string, TableGroup>();
  /** id → item, built on first use (it decodes every pending group), then kept up to date. */
  private ids?: Map<string, StoredItem>;
  private root = newNode();
  private freeGroupIds: number[] = [];
  private nextGroupId = 0;

  get size(): number {
    return this.root.count;
  }

  /** The item with this {@link itemId} (the first call decodes every pending group). */
  byId(id: string): StoredItem | undefined {
    if (!this.ids) {
      const ids = new Map<string, StoredItem>();
      for (const item of this.items()) ids.set(item.id, item);
      this.ids = ids;
    }
    return this.ids.get(id);
  }

  /** The item with this {@link itemId} in `group` (decodes that group only). */
  inGroup(group: NamespaceGroup, id: string): StoredItem | undefined {
    return group.items.get(id.slice(group.nsKey.length + 1));
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
    if (!group) group = this.newGroup(item.namespace, nsKey);
    item.gid = group.id;
    const added = !group.items.has(item.key);
    group.items.set(item.key, item);
    this.ids?.set(item.id, item);
    if (added) this.adjustCounts(item.namespace, 1);
  }

  /**
   * Adds a snapshot's group of items, to be decoded when first used; `decoded`
   * is called with them then. The namespace must not be in the table yet.
   */
  setPending(pending: PendingGroup, decoded: (items: StoredItem[]) => void): NamespaceGroup {
    const nsKey = namespaceKey(pending.namespace);
    if (this.groups.has(nsKey)) throw new Error(`namespace ${JSON.stringify(pending.namespace)} is already in the table`);
    const group = this.newGroup(pending.namespace, nsKey, pending, decoded);
    this.ids = undefined;
    if (pending.count) this.adjustCounts(pending.namespace, pending.count);
    return group;
  }

  private newGroup(namespace: string[], nsKey: string, pending?: PendingGroup, decoded?: (items: StoredItem[]) => void): TableGroup {
    const id = this.freeGroupIds.pop() ?? this.nextGroupId++;
    const group = new TableGroup(id, namespace, nsKey, pending, decoded);
    this.groups.set(nsKey, group);
    this.nodeFor(namespace, true)!.group = group;
    return group;
  }

  delete(namespace: readonly string[], key: string): StoredItem | undefined {
    const nsKey = namespaceKey(namespace);
    const group = this.groups.get(nsKey);
    const item = group?.items.get(key);
    if (!group || !item) return undefined;
    group.items.delete(key);
    this.ids?.delete(item.id);
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

  /**
   * Decodes every group still pending from the snapshot, pausing between
   * groups when `slicer` says so: before a whole-table pass (a compaction),
   * so that it does not decode 100k items in one stretch of the event loop.
   */
  async decodeAll(slicer: TimeSlicer): Promise<void> {
    for (const group of [...this.groups.values()]) {
      if (!group.decoded) {
        void group.items;
        if (slicer.due) await slicer.pause();
      }
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
    value: cloneJson(item.value),
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
  };
}
