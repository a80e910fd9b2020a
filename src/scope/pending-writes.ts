import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { underlyingStore } from "./resolve-store.js";

/**
 * Tracks memory writes that run in the background (debounced extraction), so
 * that a later recall on the same namespace sees them. Keyed by the real
 * store, so LangGraph's per-run wrappers of it share one registry.
 *
 * Two kinds of entries:
 * - running writes: a recall waits for them;
 * - queued writes (waiting out their debounce): a recall from ANOTHER thread
 *   starts them at once and waits; a recall from the same thread leaves them
 *   queued, since that thread's own messages already hold what they would
 *   write, and waiting would delay every reply of an active conversation.
 */
interface Queued {
  thread?: string;
  startNow: () => void;
}

interface Entry {
  running: Set<Promise<unknown>>;
  queued: Map<string, Queued>;
}

const registry = new WeakMap<BaseStore, Map<string, Entry>>();

const nsKey = (namespace: readonly string[]) => JSON.stringify(namespace);

function entry(store: BaseStore, namespace: readonly string[]): Entry {
  const real = underlyingStore(store);
  let byNs = registry.get(real);
  if (!byNs) registry.set(real, (byNs = new Map()));
  let e = byNs.get(nsKey(namespace));
  if (!e) byNs.set(nsKey(namespace), (e = { running: new Set(), queued: new Map() }));
  return e;
}

/** Registers a background write that is running on `namespace`; it is forgotten when it settles. */
export function trackPendingWrite(store: BaseStore, namespace: readonly string[], work: Promise<unknown>): void {
  const e = entry(store, namespace);
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  e.running.add(settled);
  void settled.then(() => e.running.delete(settled));
}

/**
 * Registers a write that waits out a debounce. `id` identifies the job (a
 * re-scheduled job replaces its entry); `startNow` cuts the wait short. Call
 * {@link forgetQueuedWrite} when it starts.
 */
export function trackQueuedWrite(store: BaseStore, namespace: readonly string[], id: string, job: Queued): void {
  entry(store, namespace).queued.set(id, job);
}

export function forgetQueuedWrite(store: BaseStore, namespace: readonly string[], id: string): void {
  entry(store, namespace).queued.delete(id);
}

/**
 * Resolves once the background writes on `namespace` have settled: running
 * ones, and queued ones from threads other than `thread` (which are started
 * now rather than waited out).
 */
export async function waitForPendingWrites(store: BaseStore, namespace: readonly string[], options: { thread?: string } = {}): Promise<void> {
  const e = registry.get(underlyingStore(store))?.get(nsKey(namespace));
  if (!e) return;
  for (const [id, job] of [...e.queued]) {
    if (options.thread !== undefined && job.thread === options.thread) continue;
    e.queued.delete(id);
    job.startNow();
  }
  while (e.running.size > 0) await Promise.all([...e.running]);
}
