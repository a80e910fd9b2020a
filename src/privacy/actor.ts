import { AsyncLocalStorage } from "node:async_hooks";

/** Who or what is changing memory, for the audit trail and the history. */
export interface MemoryActor {
  /**
   * What made the change: `"tool"`, `"extractor"`, `"api"`, `"cli"`, or your own word.
   * When unset, the written value's own `source` field is used, else `"api"`.
   */
  source?: string;
  /** The acting identity (an end user's id, a service name), when known. Never stored in clear. */
  identity?: string;
}

const actorStorage = new AsyncLocalStorage<MemoryActor>();

/**
 * Runs `fn` with `actor` as the one making memory changes: every write that
 * a {@link ProtectedStore} sees inside `fn` (however deep in async calls) is
 * attributed to it. The server and the CLI use this; so can your own code.
 */
export function runAsActor<T>(actor: MemoryActor, fn: () => T): T {
  return actorStorage.run({ ...actorStorage.getStore(), ...actor }, fn);
}

/** The actor of the current async context, if any. */
export function currentActor(): MemoryActor | undefined {
  return actorStorage.getStore();
}
