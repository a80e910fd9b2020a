import type { BaseStore, Item, PutOperation } from "@langchain/langgraph-checkpoint";
import { HISTORY_NAMESPACE_ROOT } from "../store/hidden-namespaces.js";
import { InvalidArgumentError } from "../errors.js";

/**
 * The root label of the namespace that keeps previous versions: versions of
 * `["users", "42"]`/`k` live in `["memory_history", "users", "42"]`, outside
 * the user's prefix (recall never returns them) and never embedded.
 */
export { HISTORY_NAMESPACE_ROOT };

/** One previous version of a memory. */
export interface MemoryVersion {
  /** The memory's key. */
  key: string;
  /** Version id, increasing with time; pass it to {@link restoreVersion}. */
  version: number;
  /** What replaced this version. */
  op: "update" | "delete";
  /** The value as it was. */
  value: Record<string, unknown>;
  /** ISO times of the old item. */
  createdAt: string;
  updatedAt: string;
  /** ISO time of the change. */
  changedAt: string;
  /** What made the change (`tool`, `extractor`, `api`, `cli`, …). */
  source: string;
  /** Who made the change, when known. */
  identity?: string;
}

/** The namespace holding previous versions of memories in `namespace`. */
export function historyNamespace(namespace: readonly string[]): string[] {
  return [HISTORY_NAMESPACE_ROOT, ...namespace];
}

let lastVersion = 0;
function nextVersion(): number {
  lastVersion = Math.max(Date.now() * 1000, lastVersion + 1);
  return lastVersion;
}

/** The put that records `previous` as a version, for inclusion in the same batch as the change. */
export function versionPut(
  previous: Item,
  change: { op: MemoryVersion["op"]; source: string; identity?: string; ttlMinutes?: number },
): PutOperation {
  const version = nextVersion();
  const record: MemoryVersion = {
    key: previous.key,
    version,
    op: change.op,
    value: previous.value,
    createdAt: new Date(previous.createdAt).toISOString(),
    updatedAt: new Date(previous.updatedAt).toISOString(),
    changedAt: new Date().toISOString(),
    source: change.source,
    ...(change.identity === undefined ? {} : { identity: change.identity }),
  };
  const op: PutOperation & { ttl?: number } = {
    namespace: historyNamespace(previous.namespace),
    key: `${previous.key}@${version}`,
    value: record as unknown as Record<string, unknown>,
    index: false,
  };
  if (change.ttlMinutes !== undefined) op.ttl = change.ttlMinutes;
  return op;
}

/** Every kept version of a memory, newest first. */
export async function listHistory(store: BaseStore, namespace: string[], key: string): Promise<MemoryVersion[]> {
  const out: MemoryVersion[] = [];
  const ns = historyNamespace(namespace);
  for (let offset = 0; ; offset += 100) {
    const page = await store.search(ns, { filter: { key }, limit: 100, offset });
    for (const item of page) {
      if (item.namespace.length === ns.length) out.push(item.value as unknown as MemoryVersion);
    }
    if (page.length < 100) break;
  }
  return out.sort((a, b) => b.version - a.version);
}

/**
 * Puts version `version` of a memory back as its current value. The value it
 * replaces (if any) becomes a version itself when `store` keeps history.
 */
export async function restoreVersion(store: BaseStore, namespace: string[], key: string, version: number): Promise<MemoryVersion> {
  const item = await store.get(historyNamespace(namespace), `${key}@${version}`);
  if (!item) throw new InvalidArgumentError(`no version ${version} of '${key}' in ${JSON.stringify(namespace)}`);
  const record = item.value as unknown as MemoryVersion;
  await store.put(namespace, key, record.value);
  return record;
}
