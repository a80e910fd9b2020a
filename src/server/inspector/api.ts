import type { BaseStore, Item, SearchItem } from "@langchain/langgraph-checkpoint";
import { CURSOR_NAMESPACE_ROOT } from "../../extract/cursor.js";
import { InvalidArgumentError } from "../../errors.js";
import { erasePerson } from "../../privacy/retention.js";
import { hasPrefix, namespaceKey, validateNamespace } from "../../store/namespace.js";

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
  /** Who wrote it: "extractor", "tool", or what the value says. */
  source: string;
  /** Relevance to the search query (cosine similarity when the store has vectors). */
  score?: number;
}

/** Optional store methods the inspector uses when present (HNSWStore has them). */
interface RichStore {
  count?(prefix: string[]): Promise<number>;
  expiryOf?(namespace: string[], key: string): Promise<Date | null | undefined>;
  deleteNamespace?(prefix: string[]): Promise<number>;
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

const textOf = (v: Record<string, unknown>) => (typeof v.text === "string" ? v.text : typeof v.content === "string" ? v.content : JSON.stringify(v));

/** The inspector's view of a store: every operation goes through the `BaseStore` API. */
export class InspectorApi {
  constructor(
    private readonly store: BaseStore,
    private readonly clock: () => number = Date.now,
  ) {}

  private get rich(): RichStore {
    return this.store as unknown as RichStore;
  }

  /** Namespaces that hold memories (extraction cursors left out), with counts. */
  async namespaces(): Promise<{ namespace: string[]; items: number }[]> {
    const all = (await this.store.listNamespaces({ limit: 100_000 })).filter((ns) => ns[0] !== CURSOR_NAMESPACE_ROOT);
    const sorted = [...all].sort((a, b) => b.length - a.length);
    const exact = new Map<string, number>();
    for (const ns of sorted) {
      let n = this.rich.count ? await this.rich.count(ns) : (await this.store.search(ns, { limit: 100_000 })).length;
      for (const o of sorted) if (o.length > ns.length && hasPrefix(o, ns)) n -= exact.get(namespaceKey(o)) ?? 0;
      exact.set(namespaceKey(ns), n);
    }
    return all.map((ns) => ({ namespace: ns, items: exact.get(namespaceKey(ns)) ?? 0 })).sort((a, b) => namespaceKey(a.namespace).localeCompare(namespaceKey(b.namespace)));
  }

  /** Memories under `prefix`: most recent first, or by relevance to `query`. */
  async memories(prefix: string[], options: { query?: string; limit?: number } = {}): Promise<InspectorMemory[]> {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidArgumentError(`limit must be an integer from 1 to 1000, got ${JSON.stringify(options.limit)}`);
    const hits = await this.store.search(prefix, { query: options.query || undefined, limit });
    const now = this.clock();
    const out: InspectorMemory[] = [];
    for (const h of hits) {
      if (h.namespace[0] === CURSOR_NAMESPACE_ROOT) continue;
      out.push(await this.describe(h, now));
    }
    return out;
  }

  private async describe(item: Item | SearchItem, now: number): Promise<InspectorMemory> {
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
    }
    if ("score" in item && item.score !== undefined) m.score = item.score;
    return m;
  }

  async deleteMemory(namespace: string[], key: string): Promise<boolean> {
    if (typeof key !== "string" || key === "") throw new InvalidArgumentError("key must be a non-empty string");
    const existed = (await this.store.get(namespace, key)) !== null;
    await this.store.delete(namespace, key);
    return existed;
  }

  /**
   * Forgets `namespace` the way `erasePerson` does: every memory under it,
   * their kept versions, the extraction and episode cursors (which hold the
   * last reply's text), audit entries made unlinkable on a ProtectedStore,
   * and on HNSWStore a compaction that purges them from every file.
   */
  async forget(namespace: string[]): Promise<{ memories: number; cursors: number; history: number }> {
    validateNamespace(namespace, { forWrite: true });
    const report = await erasePerson(this.store, { namespaces: [namespace] });
    const r = report.namespaces[0]!;
    return { memories: r.items, cursors: r.cursors, history: r.history };
  }
}
