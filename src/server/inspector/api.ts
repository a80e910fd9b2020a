import type { BaseStore, Item, PutOperation } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../../errors.js";
import { historyNamespace, versionPut, type MemoryVersion } from "../../privacy/history.js";
import { ProtectedStore } from "../../privacy/protected-store.js";
import { erasePerson } from "../../privacy/erase-person.js";
import type { KindErasure } from "../../scope/forget-person.js";
import { classifyNamespace, listedAsMemories, personOf } from "../../scope/layout-match.js";
import { defaultMemoryLayout, layoutKind, type MemoryLayout } from "../../scope/memory-layout.js";
import { namespaceKey, validateNamespace } from "../../store/namespace.js";
import { listThreads, threadTurns } from "./episodes-api.js";
import { matches, peekItem, peekSearch, scanPrefix, sortItems, textOf, type FilterField, type MemorySort, type PageRequest } from "./listing.js";

/** What the inspector shows for one memory. */
export interface InspectorMemory {
  namespace: string[];
  key: string;
  text: string;
  value: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /** Milliseconds until the memory expires; null = never; undefined = unknown to this store. */
  ttlLeftMs?: number | null;
  /** ISO time the memory expires; null = never; undefined = unknown to this store. */
  expiresAt?: string | null;
  /** Who wrote it: "extractor", "tool", or what the value says. */
  source: string;
  /** Relevance to the search query (cosine similarity when the store has vectors). */
  score?: number;
}

/** One page of memories and the honest size of the whole list. */
export interface MemoryPage {
  memories: InspectorMemory[];
  /** Memories in the whole list (after the filter); a lower bound when `complete` is false. */
  total: number;
  offset: number;
  limit: number;
  sort: MemorySort;
  /** False when the list was longer than the inspector scans (`SCAN_CAP`): `total` is then a lower bound. */
  complete: boolean;
}

/** What a namespace holds, for the sidebar: memories, or conversation turns (episodes). */
export interface InspectorNamespace {
  namespace: string[];
  /** Items in this namespace itself (not in namespaces below it). */
  items: number;
  /** The view that shows it. */
  kind: "memories" | "episodes";
  /** The layout's kind it belongs to (`"facts"`, `"episodes"`, one you added), or undefined for a namespace the layout does not name. */
  memoryKind?: string;
}

/** Optional store methods the inspector uses when present (HNSWStore has them). */
interface RichStore {
  count?(prefix: string[]): Promise<number>;
  expiryOf?(namespace: string[], key: string): Promise<Date | null | undefined>;
}

/** Parses a namespace given to the API: a JSON array or a dotted string. */
export function namespaceParam(raw: unknown, what = "namespace"): string[] {
  let ns: unknown = raw;
  if (typeof raw === "string") ns = raw.trim().startsWith("[") ? safeJson(raw) : raw === "" ? [] : raw.split(".");
  validateNamespace(ns, { what });
  return ns;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw new InvalidArgumentError(`namespace ${JSON.stringify(s)} is not valid JSON`);
  }
}

/** Label by label, a parent before its children (`users.42` < `users.42.prefs` < `users.7`). */
function compareLabels(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = a[i]!.localeCompare(b[i]!, "en", { numeric: true });
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Labels the inspector uses to recognise a person's namespaces (the default layout's first labels). */
export interface PeopleLabels {
  /** First label of a user's memory namespace (`["users", id]`). */
  usersLabel: string;
  /** First label of a user's episode namespace (`["episodes", id]`). */
  episodesLabel: string;
}

/** What the inspector's "Forget" erased. */
export interface InspectorForgetReport {
  /** Every namespace erased. */
  namespaces: string[][];
  /** The person forgotten (every kind of the layout), or undefined when one namespace was. */
  person?: string;
  /** Facts and other memories (items outside episodes and learned instructions). */
  memories: number;
  /** Conversation turns. */
  episodes: number;
  /** Learned instructions and their feedback, every agent. */
  procedures: number;
  history: number;
  cursors: number;
  /** Per kind of the layout, when a person was forgotten. */
  kinds?: Record<string, KindErasure>;
  /** What was deliberately kept (agent-wide instructions). */
  kept?: string[];
}

/** The layout a PeopleLabels pair stands for. */
export const layoutOfLabels = (p: PeopleLabels): MemoryLayout => defaultMemoryLayout({ facts: [p.usersLabel, "{user_id}"], episodes: [p.episodesLabel, "{user_id}"] });

/** The inspector's view of a store: every operation goes through the `BaseStore` API. */
export class InspectorApi {
  private readonly layout: MemoryLayout;

  constructor(
    private readonly store: BaseStore,
    people: PeopleLabels | MemoryLayout = { usersLabel: "users", episodesLabel: "episodes" },
    private readonly clock: () => number = Date.now,
  ) {
    this.layout = "kinds" in people ? people : layoutOfLabels(people);
  }

  /** The store's own extras; a ProtectedStore's reads of expiry go to the store it wraps (they change nothing). */
  private get rich(): RichStore {
    const own = this.store as unknown as RichStore;
    const inner = this.store instanceof ProtectedStore ? (this.store.inner as unknown as RichStore) : undefined;
    return { count: own.count?.bind(own), expiryOf: (own.expiryOf ?? inner?.expiryOf)?.bind(own.expiryOf ? own : inner) };
  }

  /** Whether the store records a version of each memory it replaces or deletes (a ProtectedStore with history). */
  get keepsHistory(): boolean {
    return this.store instanceof ProtectedStore && this.store.options.history === true;
  }

  /**
   * Namespaces that hold memories or episodes, with counts. Bookkeeping
   * (versions, cursors, feedback) is left out, and so are learned
   * instructions, which have their own view.
   */
  async namespaces(): Promise<InspectorNamespace[]> {
    const all = (await this.store.listNamespaces({ limit: 100_000 })).filter((ns) => listedAsMemories(this.layout, ns));
    // count(ns) covers the namespaces below it: subtract, from each namespace's nearest listed
    // ancestor, what the namespace covers (n namespaces × their depth, not n²).
    const listed = new Set(all.map(namespaceKey));
    const exact = new Map<string, number>();
    for (const ns of all) {
      const n = this.rich.count ? await this.rich.count(ns) : (await scanPrefix(this.store, ns)).items.length;
      exact.set(namespaceKey(ns), (exact.get(namespaceKey(ns)) ?? 0) + n);
      for (let depth = ns.length - 1; depth > 0; depth--) {
        const up = namespaceKey(ns.slice(0, depth));
        if (listed.has(up)) {
          exact.set(up, (exact.get(up) ?? 0) - n);
          break;
        }
      }
    }
    const out: InspectorNamespace[] = [];
    for (const ns of all) {
      const declared = classifyNamespace(this.layout, ns)?.kind;
      let kind: InspectorNamespace["kind"] = declared?.view === "episodes" ? "episodes" : "memories";
      if (!declared) {
        const [first] = await peekSearch(this.store, ns, { limit: 1 });
        if (first && first.value.kind === "episode" && typeof first.value.threadId === "string") kind = "episodes";
      }
      out.push({ namespace: ns, items: exact.get(namespaceKey(ns)) ?? 0, kind, ...(declared ? { memoryKind: declared.name } : {}) });
    }
    return out.sort((a, b) => compareLabels(a.namespace, b.namespace));
  }

  /**
   * One page of the memories under `prefix`: most recent first, by relevance
   * to `query`, or in another `sort`, keeping those that contain `filter`.
   */
  async memories(
    prefix: string[],
    options: Partial<PageRequest> & { query?: string; filter?: string; field?: FilterField; sort?: MemorySort } = {},
  ): Promise<MemoryPage> {
    const limit = options.limit ?? 100;
    const offset = options.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidArgumentError(`limit must be an integer from 1 to 1000, got ${JSON.stringify(options.limit)}`);
    if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentError(`offset must be a non-negative integer, got ${JSON.stringify(options.offset)}`);
    const query = options.query?.trim() || undefined;
    const needle = (options.filter ?? "").trim().toLowerCase();
    const sort: MemorySort = options.sort ?? (query ? "relevance" : "updated-desc");
    if (sort === "relevance" && !query) throw new InvalidArgumentError("sort relevance needs a query (search by meaning)");
    const now = this.clock();

    // The store's own order and count answer the plain listing without reading everything.
    if (!query && !needle && sort === "updated-desc" && prefix.length > 0 && this.rich.count) {
      const [total, items] = await Promise.all([this.rich.count(prefix), peekSearch(this.store, prefix, { limit, offset })]);
      return { memories: await Promise.all(items.map((i) => this.describe(i, now))), total, offset, limit, sort, complete: true };
    }
    const { items, complete } = await scanPrefix(this.store, prefix, { query });
    const kept = needle ? items.filter((i) => matches(i, needle, options.field ?? "any")) : items;
    sortItems(kept, sort);
    const page = kept.slice(offset, offset + limit);
    return { memories: await Promise.all(page.map((i) => this.describe(i, now))), total: kept.length, offset, limit, sort, complete };
  }

  /**
   * One memory (null when it is gone) and its kept versions, newest first,
   * each with `number`: its place in the memory's history as people count
   * (1 = the oldest kept). `version` stays the id `restore` takes.
   */
  async memory(namespace: string[], key: unknown): Promise<{ memory: InspectorMemory | null; history: (MemoryVersion & { number: number })[]; keepsHistory: boolean }> {
    if (typeof key !== "string" || key === "") throw new InvalidArgumentError("key must be a non-empty string");
    const item = await peekItem(this.store, namespace, key);
    const hns = historyNamespace(namespace);
    const kept = await scanPrefix(this.store, hns, { filter: { key } });
    const history = kept.items
      .filter((i) => i.namespace.length === hns.length)
      .map((i) => i.value as unknown as MemoryVersion)
      .sort((a, b) => b.version - a.version)
      .map((v, i, all) => ({ ...v, number: all.length - i }));
    return { memory: item ? await this.describe(item, this.clock()) : null, history, keepsHistory: this.keepsHistory };
  }

  private async describe(item: Item & { score?: number }, now: number): Promise<InspectorMemory> {
    const m: InspectorMemory = {
      namespace: item.namespace,
      key: item.key,
      text: textOf(item.value),
      value: item.value,
      createdAt: new Date(item.createdAt).toISOString(),
      updatedAt: new Date(item.updatedAt).toISOString(),
      source: typeof item.value.source === "string" ? item.value.source : "unknown",
    };
    if (this.rich.expiryOf) {
      const exp = await this.rich.expiryOf(item.namespace, item.key);
      m.ttlLeftMs = exp ? Math.max(0, exp.getTime() - now) : exp === null ? null : undefined;
      m.expiresAt = exp ? exp.toISOString() : exp === null ? null : undefined;
    }
    if (item.score !== undefined) m.score = item.score;
    return m;
  }

  async deleteMemory(namespace: string[], key: unknown): Promise<boolean> {
    if (typeof key !== "string" || key === "") throw new InvalidArgumentError("key must be a non-empty string");
    validateNamespace(namespace, { forWrite: true });
    const existed = (await peekItem(this.store, namespace, key)) !== null;
    await this.store.delete(namespace, key);
    return existed;
  }

  /**
   * Puts kept version `version` back as the memory's current value. The value
   * it replaces is kept as a version too (by the store when it keeps history,
   * else here), so a restore can itself be undone.
   */
  async restore(namespace: string[], key: unknown, version: unknown): Promise<{ restored: MemoryVersion; memory: InspectorMemory | null }> {
    if (typeof key !== "string" || key === "") throw new InvalidArgumentError("key must be a non-empty string");
    if (typeof version !== "number" || !Number.isSafeInteger(version) || version <= 0) {
      throw new InvalidArgumentError(`version must be a positive integer from the memory's history, got ${JSON.stringify(version)}`);
    }
    validateNamespace(namespace, { forWrite: true });
    const kept = await peekItem(this.store, historyNamespace(namespace), `${key}@${version}`);
    if (!kept) throw new InvalidArgumentError(`no version ${version} of '${key}' in ${JSON.stringify(namespace)}`);
    const record = kept.value as unknown as MemoryVersion;
    const ops: PutOperation[] = [];
    const current = await peekItem(this.store, namespace, key);
    if (current && !this.keepsHistory) ops.push(versionPut(current, { op: "update", source: "inspector" }));
    ops.push({ namespace, key, value: record.value });
    await this.store.batch(ops);
    const now = await peekItem(this.store, namespace, key);
    return { restored: record, memory: now ? await this.describe(now, this.clock()) : null };
  }

  /** The user id a namespace belongs to under the layout (`["users", "42"]` → `"42"`), or undefined for other namespaces. */
  personOf(namespace: string[]): string | undefined {
    return personOf(this.layout, namespace);
  }

  /**
   * Erases a person or one namespace. For a namespace of a person (any kind
   * of the layout: `["users", id]`, `["episodes", id]`, ...): every kind the
   * layout names for that person (facts, episodes, learned instructions and
   * feedback of every agent), with kept versions and cursors, as
   * `erasePerson({ userId })` does. For any other namespace: every item,
   * kept version and cursor under it.
   */
  async forget(namespace: string[]): Promise<InspectorForgetReport> {
    validateNamespace(namespace, { forWrite: true });
    const person = this.personOf(namespace);
    const report = person === undefined
      ? await erasePerson(this.store, { namespaces: [namespace] })
      : await erasePerson(this.store, { userId: person, layout: this.layout, namespaces: [namespace] });
    const out: InspectorForgetReport = { namespaces: report.namespaces.map((r) => r.namespace), memories: 0, episodes: 0, procedures: 0, history: 0, cursors: 0 };
    if (person === undefined) {
      const r = report.namespaces[0]!;
      return { ...out, memories: r.items, history: r.history, cursors: r.cursors };
    }
    for (const [name, k] of Object.entries(report.kinds ?? {})) {
      const view = layoutKind(this.layout, name)?.view ?? "memories";
      if (view === "episodes") out.episodes += k.items;
      else if (view === "procedures") out.procedures += k.items + k.bookkeeping;
      else out.memories += k.items + k.bookkeeping;
      out.history += k.versions;
      out.cursors += k.cursors;
    }
    return { ...out, person, kinds: report.kinds, kept: report.kept };
  }

  /** The conversations recorded in an episode namespace. */
  threads(namespace: string[], options: PageRequest & { filter?: string }) {
    return listThreads(this.store, namespace, options);
  }

  /** The turns of one conversation. */
  thread(namespace: string[], threadId: unknown, page: PageRequest) {
    return threadTurns(this.store, namespace, threadId, page);
  }
}
