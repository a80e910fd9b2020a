import { KeywordIndex } from "../../embeddings/keyword-index.js";
import { allStrings, extractFieldTexts } from "../fields.js";
import { ItemTable, itemId, type NamespaceGroup, type StoredItem } from "./item-table.js";
import { namespaceKey } from "../namespace.js";
import type { LoadedItems, SnapshotItem } from "./snapshot-items.js";
import type { VectorIndex } from "./vector-index.js";
import { LoadedItem } from "./loaded-item.js";
import { decodeVector } from "../../embeddings/vector-codec.js";
import type { LogOp } from "./write-ahead-log.js";

/** A put, ready to apply: the value and its vectors, already validated. */
export interface PreparedPut {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  index?: false | string[];
  expiresAt?: number;
  ttl?: number;
  /** A JS array or a typed array (a batch's vectors wait as typed arrays, which the collector need not copy). */
  vectors: { field: string; vector: number[] | Float32Array }[];
}

/**
 * Everything the store holds in memory: the items, the vector index with its
 * label → item map, and a keyword index built on first use. Live batches and
 * log replay both change it through {@link applyPut} / {@link applyDelete},
 * so a replayed store is the same as the one that wrote the log.
 */
export class StoreState {
  readonly items = new ItemTable();
  /** label → owning item. */
  readonly owners: (StoredItem | undefined)[] = [];
  private keyword?: KeywordIndex;
  /** The snapshot group whose item owned a label when the store opened (see {@link owner}). */
  private pendingOwner?: (label: number) => NamespaceGroup | undefined;
  /** Keyword indexes of single namespaces, built when a search first needs one. */
  private groupKeyword = new Map<string, KeywordIndex>();

  constructor(
    /** The store's default index fields, or null when the store has no index. */
    public fields: string[] | null,
    public vectors: VectorIndex | undefined,
  ) {}

  /** The paths indexed for an item (its put override, or the store's fields). */
  pathsFor(index: false | string[] | undefined): string[] {
    if (index === false) return [];
    return index ?? this.fields ?? [];
  }

  /** The texts used for keyword ranking of an item. */
  keywordTexts(item: Pick<StoredItem, "value" | "index">): string[] {
    if (item.index === false) return [];
    const paths = this.pathsFor(item.index);
    // "$" would rank JSON keys and punctuation: use the value's strings instead.
    if (paths.length === 0 || paths.includes("$")) return allStrings(item.value);
    return extractFieldTexts(item.value, paths).map((f) => f.text);
  }

  /**
   * The keyword index of one namespace, built from its items the first time
   * it is needed: a search over one user's memories costs that user's items,
   * not the whole store (building the global index takes ~5 s per 100k items).
   */
  namespaceKeywordIndex(group: NamespaceGroup): KeywordIndex {
    const key = namespaceKey(group.namespace);
    let kw = this.groupKeyword.get(key);
    if (!kw) {
      kw = new KeywordIndex();
      for (const item of group.items.values()) kw.add(item.id, this.keywordTexts(item));
      this.groupKeyword.set(key, kw);
    }
    return kw;
  }

  /** The keyword index of the whole store, built from all items the first time it is needed. */
  keywordIndex(): KeywordIndex {
    if (!this.keyword) {
      this.keyword = new KeywordIndex();
      for (const item of this.items.items()) this.keyword.add(item.id, this.keywordTexts(item));
    }
    return this.keyword;
  }

  applyPut(put: PreparedPut, at: number): StoredItem {
    const existing = this.items.get(put.namespace, put.key);
    if (existing) this.dropVectors(existing);
    const item: StoredItem = {
      id: existing?.id ?? itemId(put.namespace, put.key),
      namespace: existing?.namespace ?? [...put.namespace],
      key: put.key,
      value: put.value,
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
      expiresAt: put.expiresAt,
      ttl: put.ttl,
      index: put.index,
      vectors: [],
    };
    if (this.vectors) {
      for (const { field, vector } of put.vectors) {
        const label = this.vectors.add(vector);
        this.owners[label] = item;
        item.vectors.push({ label, field });
      }
    }
    this.items.set(item);
    // Keyword indexes are built on first use: until then there is nothing to update.
    const groupKeyword = this.groupKeyword.size ? this.groupKeyword.get(namespaceKey(item.namespace)) : undefined;
    if (this.keyword || groupKeyword) {
      const texts = this.keywordTexts(item);
      this.keyword?.add(item.id, texts);
      groupKeyword?.add(item.id, texts);
    }
    return item;
  }

  applyDelete(namespace: string[], key: string): boolean {
    const item = this.items.delete(namespace, key);
    if (!item) return false;
    this.dropVectors(item);
    this.keyword?.remove(item.id);
    const nsKey = namespaceKey(namespace);
    const kw = this.groupKeyword.get(nsKey);
    if (kw) {
      kw.remove(item.id);
      if (kw.size === 0) this.groupKeyword.delete(nsKey);
    }
    return true;
  }

  /** Applies one logged change (log replay on open). */
  applyLogOp(op: LogOp, at: number): void {
    if (op.t === "del") this.applyDelete(op.ns, op.key);
    else if (op.t === "touch") this.applyTouch(op.ns, op.key, op.exp);
    else {
      const vectors = (op.vec ?? []).map(([field, b64]) => ({ field, vector: Array.from(decodeVector(b64) ?? []) }));
      this.applyPut({ namespace: op.ns, key: op.key, value: op.value, index: op.index, expiresAt: op.exp, ttl: op.ttl, vectors }, at);
    }
  }

  applyTouch(namespace: string[], key: string, expiresAt: number): void {
    const item = this.items.get(namespace, key);
    if (item) item.expiresAt = expiresAt;
  }

  private dropVectors(item: StoredItem): void {
    for (const { label } of item.vectors) {
      this.vectors?.remove(label);
      this.owners[label] = undefined;
    }
    item.vectors = [];
  }

  /**
   * Restores items from a snapshot (the vector index loads beside it). Each
   * namespace's items are decoded when first used: by an operation on that
   * namespace, or when a search's HNSW walk meets one of their labels.
   */
  loadSnapshot(loaded: LoadedItems): void {
    if (loaded.labelEnd > this.owners.length) this.owners.length = loaded.labelEnd;
    const register = (items: StoredItem[]) => {
      for (const item of items) for (const v of item.vectors) this.owners[v.label] = item;
    };
    const tableGroups = loaded.groups.map((pending) => this.items.setPending(pending, register));
    const groupOf = loaded.groupOf;
    if (groupOf.length) this.pendingOwner = (label) => (label < groupOf.length && groupOf[label]! > 0 ? tableGroups[groupOf[label]! - 1] : undefined);
  }

  /** The item that owns `label` (decoding its namespace's items if still pending). */
  owner(label: number): StoredItem | undefined {
    const item = this.owners[label];
    if (item !== undefined || !this.pendingOwner) return item;
    // Touching the group's items decodes them, which registers their labels.
    void this.pendingOwner(label)?.items;
    return this.owners[label];
  }

  *snapshotItems(): IterableIterator<SnapshotItem> {
    for (const it of this.items.items()) {
      const s: SnapshotItem = { ns: it.namespace, key: it.key, value: undefined!, createdAt: it.createdAt, updatedAt: it.updatedAt };
      // An item never read since it was loaded is written back as the JSON it was read from.
      const json = it instanceof LoadedItem ? it.valueJson : undefined;
      if (json !== undefined) s.valueJson = json;
      else s.value = it.value;
      if (it.expiresAt !== undefined) s.exp = it.expiresAt;
      if (it.ttl !== undefined) s.ttl = it.ttl;
      if (it.index !== undefined) s.index = it.index;
      if (it.vectors.length) s.vec = it.vectors.map((v) => [v.label, v.field]);
      yield s;
    }
  }

  /** Switches to a rebuilt vector index (after a reindex). */
  swapVectors(vectors: VectorIndex, assignments: Map<StoredItem, { label: number; field: string }[]>, fields: string[]): void {
    this.vectors = vectors;
    this.fields = fields;
    this.owners.length = 0;
    this.pendingOwner = undefined;
    for (const [item, vecs] of assignments) {
      item.vectors = vecs;
      for (const v of vecs) this.owners[v.label] = item;
    }
    this.keyword = undefined;
    this.groupKeyword.clear();
  }
}
