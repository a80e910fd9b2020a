import type { Item, SearchItem } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../store/hnsw/hnsw-store.js";
import { HIDDEN_NAMESPACE_ROOTS, hiddenFromListing } from "../store/hidden-namespaces.js";
import { hasPrefix, namespaceKey } from "../store/namespace.js";
import { readDirectory } from "./directory-reader.js";
import type { MemoryEntry } from "../migrate/entry.js";
import { embedderForDirectory, livePid, liveMessage, openStore, requireStore } from "./open-store.js";
import type { ChosenEmbedder } from "./embedders.js";
import type { IndexManifest } from "../store/hnsw/snapshot.js";

/** One namespace and how many live items it holds (not counting sub-namespaces). */
export interface NamespaceCount {
  namespace: string[];
  items: number;
}

/**
 * What the read commands (stats, ls, get, search) read from: the store
 * opened without its embedder, or, when a running app holds the directory,
 * a read-only view of its last snapshot plus the log.
 */
export interface ReadSource {
  /** Set for the read-only view of a live directory: the pid holding it. */
  livePid?: number;
  /** The store, when the directory could be opened (not live). */
  store?: HNSWStore;
  /**
   * Namespaces under `prefix` with their counts. The bookkeeping namespaces
   * (extraction and episode cursors, history) are left out by the stores'
   * own rule (`hiddenFromListing`: unless the prefix names their root), or
   * all listed with `includeHidden`.
   */
  namespaces(prefix: string[], options?: { includeHidden?: boolean }): Promise<NamespaceCount[]>;
  get(ns: string[], key: string): Promise<Item | null>;
  search(prefix: string[], opts: { query?: string; filter?: Record<string, unknown>; limit: number }): Promise<SearchItem[]>;
  close(): Promise<void>;
}

/** Exact per-namespace counts from a store's namespace list and prefix counts. */
async function storeNamespaces(store: HNSWStore, prefix: string[], includeHidden: boolean): Promise<NamespaceCount[]> {
  const limit = Number.MAX_SAFE_INTEGER;
  // The whole directory includes the bookkeeping namespaces listNamespaces() leaves out by default.
  const all = prefix.length || !includeHidden
    ? await store.listNamespaces({ prefix, limit })
    : [...(await store.listNamespaces({ limit })), ...(await Promise.all(HIDDEN_NAMESPACE_ROOTS.map((root) => store.listNamespaces({ prefix: [root], limit })))).flat()];
  const sorted = [...all].sort((a, b) => b.length - a.length);
  const exact = new Map<string, number>();
  for (const ns of sorted) {
    let n = await store.count(ns);
    for (const other of sorted) if (other.length > ns.length && hasPrefix(other, ns)) n -= exact.get(namespaceKey(other)) ?? 0;
    exact.set(namespaceKey(ns), n);
  }
  return all
    .map((ns) => ({ namespace: ns, items: exact.get(namespaceKey(ns)) ?? 0 }))
    .filter((c) => c.items > 0)
    .sort((a, b) => namespaceKey(a.namespace).localeCompare(namespaceKey(b.namespace)));
}

const toItem = (e: MemoryEntry): Item => ({ namespace: e.namespace, key: e.key, value: e.value, createdAt: new Date(e.createdAt), updatedAt: new Date(e.updatedAt) });

/** Opens `dir` for reading; a live directory gives the read-only view, with a note on stderr. */
export async function openReadSource(dir: string, options: { rankByMeaning?: boolean; embeddings?: string; quiet?: boolean } = {}): Promise<ReadSource> {
  const manifest = requireStore(dir);
  const pid = livePid(dir);
  let embedder: ChosenEmbedder | undefined;
  if (options.rankByMeaning) {
    const chosen = await embedderForDirectory(dir, options.embeddings);
    if (chosen.note && !options.quiet) process.stderr.write(`note: ${chosen.note}\n`);
    embedder = chosen.embedder;
  }
  if (pid !== undefined) {
    // The view ranks with the vectors the directory holds; only the query is embedded here.
    const ranked = embedder && manifest?.index ? { embedder, index: manifest.index } : undefined;
    if (!options.quiet) {
      const how = options.rankByMeaning ? (ranked ? ", ranked by meaning with its stored vectors" : ", ranked by keywords") : "";
      process.stderr.write(`note: ${liveMessage(dir, pid)}; showing a read-only view of its last snapshot plus the log${how}\n`);
    }
    return viewSource(pid, readDirectory(dir, { vectors: !!ranked }).items, ranked);
  }
  const store = await openStore(dir, { embedder });
  return {
    store,
    namespaces: (prefix, o) => storeNamespaces(store, prefix, o?.includeHidden ?? false),
    get: (ns, key) => store.get(ns, key),
    search: (prefix, o) => store.search(prefix, o),
    close: () => store.close(),
  };
}

function viewSource(pid: number, all: MemoryEntry[], ranked?: { embedder: ChosenEmbedder; index: IndexManifest }): ReadSource {
  const now = Date.now();
  const items = all.filter((i) => !i.expiresAt || i.expiresAt > now);
  const byId = new Map(items.map((i) => [`${namespaceKey(i.namespace)}\n${i.key}`, i]));
  let memory: HNSWStore | undefined;
  return {
    livePid: pid,
    async namespaces(prefix, o) {
      const counts = new Map<string, NamespaceCount>();
      const conditions = prefix.length ? [{ matchType: "prefix" as const, path: prefix }] : undefined;
      for (const i of items) {
        if (!hasPrefix(i.namespace, prefix)) continue;
        if (!o?.includeHidden && hiddenFromListing(i.namespace, conditions)) continue;
        const k = namespaceKey(i.namespace);
        const c = counts.get(k) ?? { namespace: i.namespace, items: 0 };
        c.items++;
        counts.set(k, c);
      }
      return [...counts.values()].sort((a, b) => namespaceKey(a.namespace).localeCompare(namespaceKey(b.namespace)));
    },
    async get(ns, key) {
      const i = byId.get(`${namespaceKey(ns)}\n${key}`);
      return i ? toItem(i) : null;
    },
    async search(prefix, o) {
      // Ranking and filters through an in-memory store of the view: by meaning over the directory's
      // own vectors (never re-embedded) when its embedder is at hand, else by keywords.
      if (!memory && ranked) {
        const { embedder, index } = ranked;
        memory = new HNSWStore({ index: { dims: index.dims, embeddings: embedder.embeddings, fields: index.fields }, embedderIdentity: index.embedder, embeddingCache: false });
        await memory.importEntries(items.map((i) => ({ ...i, vectors: i.vectors ?? [] })));
      } else if (!memory) {
        memory = new HNSWStore({ retrieval: "keyword" });
        await memory.batch(items.map((i) => ({ namespace: i.namespace, key: i.key, value: i.value, index: i.index })));
      }
      const hits = await memory.search(prefix, o);
      return hits.map((h) => ({ ...toItem(byId.get(`${namespaceKey(h.namespace)}\n${h.key}`)!), score: h.score }));
    },
    async close() {
      await memory?.close();
    },
  };
}
