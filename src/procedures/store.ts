import type { BaseStore, Item, Operation } from "@langchain/langgraph-checkpoint";
import { supportsConditionalPuts } from "../store/conditional-put.js";
import type { MemoryPutOperation } from "../store/operations.js";
import { InvalidArgumentError, ProcedureConflictError, StoreConflictError } from "../errors.js";
import { currentActor } from "../privacy/actor.js";
import { versionPut } from "../privacy/history.js";
import { ProtectedStore } from "../privacy/protected-store.js";
import { procedureNamespace } from "../scope/procedure-namespace.js";
import { underlyingStore } from "../scope/resolve-store.js";
import type { LineDiff } from "./diff.js";
import { checkChange, resolveLimits, type ProcedureLimits } from "./limits.js";
import { DEFAULT_PROCEDURE_NAME, type ProcedureRecord, type ProcedureScope, type ProcedureSource } from "./types.js";

/** A change of learned instructions through {@link setProcedure}. */
export interface ProcedureChangeInput {
  /** The new instructions (the whole text). */
  instructions: string;
  /** Why the change is made; kept with the version. */
  reason: string;
  /**
   * What makes the change.
   * @default "api"
   */
  source?: ProcedureSource;
  /**
   * Feedback records the change was learned from.
   * @default []
   */
  feedbackIds?: string[];
  /**
   * Who makes the change.
   * @default the identity of the current actor (`runAsActor`), if any
   */
  identity?: string;
  /**
   * Refuse the change (ProcedureChangeRejectedError, reason `conflict`)
   * unless the current version is this one; `0` means "none yet".
   * @default undefined (no check)
   */
  expectedVersion?: number;
  /**
   * Bounds on the change (length, lines changed).
   * @default DEFAULT_PROCEDURE_LIMITS
   */
  limits?: ProcedureLimits;
  /** For restores: the version put back. @default undefined */
  restoredFrom?: number;
}

/** What {@link setProcedure} did. */
export interface ProcedureChange {
  /** The current version after the call. */
  record: ProcedureRecord;
  /** The version it replaced, if any. */
  previous?: ProcedureRecord;
  /** The line diff from the previous version. */
  diff: LineDiff;
  /** False when the text was already current (nothing written). */
  changed: boolean;
}

/** The scope's namespace and key. */
export function procedureLocation(scope: ProcedureScope): { namespace: string[]; key: string } {
  if (!scope || typeof scope !== "object") throw new InvalidArgumentError("a procedure scope needs { agentId, userId?, name? }");
  const key = scope.name ?? DEFAULT_PROCEDURE_NAME;
  if (typeof key !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(key)) {
    throw new InvalidArgumentError(`procedure name must be 1-100 letters, digits, '_' or '-', got ${JSON.stringify(scope.name)}`);
  }
  return { namespace: procedureNamespace(scope.agentId, scope.userId), key };
}

/** A stored value as a record, or undefined when it is not one (written by something else). */
export function readRecord(value: unknown): ProcedureRecord | undefined {
  const v = value as Partial<ProcedureRecord> | null | undefined;
  if (!v || typeof v !== "object" || typeof v.instructions !== "string" || !Number.isInteger(v.version)) return undefined;
  return {
    instructions: v.instructions,
    version: v.version!,
    source: typeof v.source === "string" ? v.source : "unknown",
    reason: typeof v.reason === "string" ? v.reason : "",
    feedbackIds: Array.isArray(v.feedbackIds) ? v.feedbackIds.filter((f): f is string => typeof f === "string") : [],
    ...(typeof v.identity === "string" ? { identity: v.identity } : {}),
    changedAt: typeof v.changedAt === "string" ? v.changedAt : "",
    ...(Number.isInteger(v.restoredFrom) ? { restoredFrom: v.restoredFrom } : {}),
    diff: { added: Number(v.diff?.added ?? 0), removed: Number(v.diff?.removed ?? 0) },
  };
}

/** The current learned instructions of a scope, or undefined when none were learned. */
export async function getProcedure(store: BaseStore, scope: ProcedureScope): Promise<ProcedureRecord | undefined> {
  const { namespace, key } = procedureLocation(scope);
  const item = await underlyingStore(store).get(namespace, key);
  return item ? readRecord(item.value) : undefined;
}

// One change at a time per store and scope in this process, so that two
// optimizer runs cannot both build on the same version; across processes,
// stores with conditional puts refuse the second writer (compare-and-set).
const locks = new WeakMap<BaseStore, Map<string, Promise<unknown>>>();
async function serialised<T>(store: BaseStore, id: string, work: () => Promise<T>): Promise<T> {
  let map = locks.get(store);
  if (!map) locks.set(store, (map = new Map()));
  const before = map.get(id) ?? Promise.resolve();
  const run = before.then(work, work);
  const settled = run.catch(() => undefined);
  map.set(id, settled);
  try {
    return await run;
  } finally {
    if (map.get(id) === settled) map.delete(id);
  }
}

/** Whether writes through `store` already keep versions (a ProtectedStore with `history`). */
const keepsOwnHistory = (store: BaseStore) => store instanceof ProtectedStore && store.options.history === true;

/**
 * Sets the learned instructions of a scope: the explicit API (the optimizer
 * uses it too). The change is checked against `limits` (length, lines
 * changed) and refused with {@link ProcedureChangeRejectedError} when over
 * them; otherwise the previous version is kept in `["memory_history",
 * ...namespace]` in the same batch as the change, so every version can be
 * listed (`procedureHistory`) and restored (`restoreProcedure`).
 *
 * @example
 * ```ts
 * await setProcedure(store, { agentId: "support-bot" }, {
 *   instructions: "Answer in at most three sentences.",
 *   reason: "team style guide",
 * });
 * ```
 */
export async function setProcedure(store: BaseStore, scope: ProcedureScope, change: ProcedureChangeInput): Promise<ProcedureChange> {
  const { namespace, key } = procedureLocation(scope);
  if (!change || typeof change !== "object") throw new InvalidArgumentError("setProcedure needs { instructions, reason }");
  if (typeof change.reason !== "string" || change.reason.trim() === "") throw new InvalidArgumentError("setProcedure needs a reason: why the instructions change");
  const limits = resolveLimits(change.limits);
  const real = underlyingStore(store);
  return serialised(real, JSON.stringify([namespace, key]), async () => {
    const item: Item | null = await real.get(namespace, key);
    const previous = item ? readRecord(item.value) : undefined;
    const currentVersion = previous?.version ?? 0;
    if (change.expectedVersion !== undefined && change.expectedVersion !== currentVersion) {
      throw new ProcedureConflictError(
        `the instructions are at version ${currentVersion}, not ${change.expectedVersion}: they changed meanwhile; propose again from the current version`,
      );
    }
    const diff = checkChange(previous?.instructions ?? "", change.instructions, limits);
    if (previous && previous.instructions === change.instructions) return { record: previous, previous, diff, changed: false };
    const identity = change.identity ?? currentActor()?.identity;
    const record: ProcedureRecord = {
      instructions: change.instructions,
      version: currentVersion + 1,
      source: change.source ?? "api",
      reason: change.reason.slice(0, 2000),
      feedbackIds: [...(change.feedbackIds ?? [])],
      ...(identity === undefined ? {} : { identity }),
      changedAt: new Date().toISOString(),
      ...(change.restoredFrom === undefined ? {} : { restoredFrom: change.restoredFrom }),
      diff: { added: diff.added, removed: diff.removed },
    };
    const ops: Operation[] = [];
    if (item && !keepsOwnHistory(real)) ops.push(versionPut(item, { op: "update", source: record.source, identity }));
    const put: MemoryPutOperation = { namespace, key, value: record as unknown as Record<string, unknown>, index: false };
    // On a store shared by processes the version is compare-and-set: a writer that read the same version loses.
    if (supportsConditionalPuts(real)) put.ifValue = { field: "version", equals: previous ? currentVersion : null };
    ops.push(put);
    try {
      await real.batch(ops);
    } catch (err) {
      if (!(err instanceof StoreConflictError)) throw err;
      throw new ProcedureConflictError(`the instructions moved past version ${currentVersion} while this change was written (another process changed them); nothing was written: propose again from the current version`);
    }
    return { record, ...(previous ? { previous } : {}), diff, changed: true };
  });
}
