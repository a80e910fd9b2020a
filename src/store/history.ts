import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";

/**
 * The root label of the namespace where earlier versions of memories live.
 * Versions of memories in `["users", "42"]` are stored in
 * `["memory_history", "users", "42"]`: outside the user's prefix (recall never
 * sees them), never embedded (`index: false`), and under a prefix that an
 * erase of the user removes with {@link eraseHistory}.
 */
export const HISTORY_NAMESPACE_ROOT = "memory_history";

/** The namespace holding earlier versions of memories in `namespace`. */
export function historyNamespace(namespace: readonly string[]): string[] {
  return [HISTORY_NAMESPACE_ROOT, ...namespace];
}

/** Who or what changed a memory, and how. */
export interface VersionMeta {
  /** What made the change: `"extractor"`, `"tool"`, `"restore"`, `"app"`… */
  source: string;
  /**
   * When the change was made.
   * @default now
   */
  at?: Date | string;
  /**
   * What happened to the memory: it was replaced, deleted, or restored.
   * @default "update"
   */
  change?: "update" | "delete" | "restore";
  /**
   * Who made the change, when known (a user id, an operator, a thread).
   * @default undefined
   */
  actor?: string;
  /**
   * Anything else worth keeping about the change (the replacing key, a thread id…). Plain JSON.
   * @default undefined
   */
  details?: Record<string, unknown>;
}

/** One earlier version of a memory, as {@link history} returns it. */
export interface MemoryVersion {
  /** The version's own key in the history namespace (pass it to {@link restore}). */
  id: string;
  /** The memory's namespace and key. */
  namespace: string[];
  key: string;
  /** The value the memory held before the change; `null` when it did not exist. */
  value: Record<string, unknown> | null;
  source: string;
  change: "update" | "delete" | "restore";
  /** ISO time of the change. */
  at: string;
  actor?: string;
  details?: Record<string, unknown>;
}

/** How a version is stored (the value of an item in the history namespace). */
interface StoredVersion {
  kind: "memory_version";
  namespace: string[];
  key: string;
  previous: Record<string, unknown> | null;
  source: string;
  change: "update" | "delete" | "restore";
  at: string;
  actor?: string;
  details?: Record<string, unknown>;
}

let counter = 0;

function iso(at: Date | string | undefined): string {
  const d = at === undefined ? new Date() : new Date(at);
  if (Number.isNaN(d.getTime())) throw new InvalidArgumentError(`version time must be a Date or an ISO string, got ${JSON.stringify(at)}`);
  return d.toISOString();
}

function checkTarget(namespace: readonly string[], key: string): void {
  if (!Array.isArray(namespace) || namespace.length === 0) throw new InvalidArgumentError(`history needs a non-empty namespace, got ${JSON.stringify(namespace)}`);
  if (typeof key !== "string" || key.length === 0) throw new InvalidArgumentError(`history needs a memory key, got ${JSON.stringify(key)}`);
}

/**
 * Records the value a memory held before a change, so that the change can be
 * reviewed ({@link history}) and undone ({@link restore}). Call it before
 * writing the change. Works on any `BaseStore`.
 *
 * @param previous the memory's value before the change, or `null` if it did not exist.
 * @returns the version's id.
 *
 * @example
 * ```ts
 * const old = await store.get(ns, key);
 * await recordVersion(store, ns, key, old?.value ?? null, { source: "app", change: "delete", actor: adminId });
 * await store.delete(ns, key);
 * ```
 */
export async function recordVersion(
  store: BaseStore,
  namespace: readonly string[],
  key: string,
  previous: Record<string, unknown> | null,
  meta: VersionMeta,
): Promise<string> {
  checkTarget(namespace, key);
  if (!meta || typeof meta.source !== "string" || meta.source.length === 0) {
    throw new InvalidArgumentError(`recordVersion needs meta.source (who or what made the change), got ${JSON.stringify(meta)}`);
  }
  const at = iso(meta.at);
  const version: StoredVersion = { kind: "memory_version", namespace: [...namespace], key, previous, source: meta.source, change: meta.change ?? "update", at };
  if (meta.actor !== undefined) version.actor = meta.actor;
  if (meta.details !== undefined) version.details = meta.details;
  // Sortable by time, unique within the process, and tied to the memory's key.
  const id = `${at}#${(counter++ % 1e6).toString().padStart(6, "0")}#${Math.random().toString(36).slice(2, 8)}@${key}`;
  await store.put(historyNamespace(namespace), id, version as unknown as Record<string, unknown>, false);
  return id;
}

function toVersion(item: Item): MemoryVersion | undefined {
  const v = item.value as Partial<StoredVersion>;
  if (v?.kind !== "memory_version" || typeof v.key !== "string" || !Array.isArray(v.namespace)) return undefined;
  const out: MemoryVersion = {
    id: item.key,
    namespace: v.namespace,
    key: v.key,
    value: v.previous ?? null,
    source: String(v.source ?? ""),
    change: v.change ?? "update",
    at: String(v.at ?? ""),
  };
  if (v.actor !== undefined) out.actor = v.actor;
  if (v.details !== undefined) out.details = v.details;
  return out;
}

/**
 * The recorded earlier versions of one memory, newest first.
 *
 * @param options.limit at most this many versions. @default all of them
 */
export async function history(store: BaseStore, namespace: readonly string[], key: string, options: { limit?: number } = {}): Promise<MemoryVersion[]> {
  checkTarget(namespace, key);
  const page = 100;
  const out: MemoryVersion[] = [];
  for (let offset = 0; ; offset += page) {
    const items = await store.search(historyNamespace(namespace), { filter: { key }, limit: page, offset });
    for (const item of items) {
      // Exactly this namespace: versions of deeper namespaces have their own.
      if (item.namespace.length !== namespace.length + 1) continue;
      const v = toVersion(item);
      if (v) out.push(v);
    }
    if (items.length < page) break;
  }
  out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return options.limit === undefined ? out : out.slice(0, options.limit);
}

/**
 * Puts a memory back as it was in one of its recorded versions (the newest
 * by default): the value is written again, or the memory deleted if it did
 * not exist then. The value it holds now is recorded first, as a `"restore"`
 * version, so a restore can itself be undone.
 *
 * @returns the version that was restored.
 * @throws {InvalidArgumentError} when the memory has no such version.
 */
export async function restore(
  store: BaseStore,
  namespace: readonly string[],
  key: string,
  options: { version?: string; source?: string; actor?: string } = {},
): Promise<MemoryVersion> {
  const versions = await history(store, namespace, key);
  const target = options.version === undefined ? versions[0] : versions.find((v) => v.id === options.version);
  if (!target) {
    throw new InvalidArgumentError(
      options.version === undefined
        ? `memory ${JSON.stringify(key)} in ${JSON.stringify(namespace)} has no recorded versions`
        : `memory ${JSON.stringify(key)} in ${JSON.stringify(namespace)} has no version ${JSON.stringify(options.version)}`,
    );
  }
  const current = await store.get([...namespace], key);
  await recordVersion(store, namespace, key, current?.value ?? null, {
    source: options.source ?? "restore",
    change: "restore",
    actor: options.actor,
    details: { restoredVersion: target.id },
  });
  if (target.value === null) await store.delete([...namespace], key);
  else await store.put([...namespace], key, target.value);
  return target;
}

/**
 * Deletes every recorded version under `prefix` (whole labels), e.g. when a
 * user asks to be forgotten: `eraseHistory(store, ["users", "42"])`. Uses the
 * store's `deleteNamespace` when it has one, otherwise deletes item by item.
 *
 * @returns how many versions were deleted.
 */
export async function eraseHistory(store: BaseStore, prefix: readonly string[]): Promise<number> {
  const ns = historyNamespace(prefix);
  const bulk = (store as { deleteNamespace?: (p: string[]) => Promise<number> }).deleteNamespace;
  if (typeof bulk === "function") return bulk.call(store, ns);
  let n = 0;
  for (;;) {
    const items = await store.search(ns, { limit: 100 });
    if (items.length === 0) return n;
    for (const item of items) await store.delete(item.namespace, item.key);
    n += items.length;
  }
}
