import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { listHistory } from "../privacy/history.js";
import { underlyingStore } from "../scope/resolve-store.js";
import type { ProcedureLimits } from "./limits.js";
import { getProcedure, procedureLocation, readRecord, setProcedure, type ProcedureChange } from "./store.js";
import type { ProcedureRecord, ProcedureScope } from "./types.js";

/**
 * Every version of a scope's learned instructions, newest first: the
 * current one, then the kept earlier ones (each with who or what made it
 * and why).
 */
export async function procedureHistory(store: BaseStore, scope: ProcedureScope): Promise<ProcedureRecord[]> {
  const { namespace, key } = procedureLocation(scope);
  const real = underlyingStore(store);
  const current = await getProcedure(real, scope);
  const kept = (await listHistory(real, namespace, key)).map((v) => readRecord(v.value)).filter((r): r is ProcedureRecord => r !== undefined);
  const byVersion = new Map<number, ProcedureRecord>();
  for (const r of [...kept, ...(current ? [current] : [])]) byVersion.set(r.version, r);
  return [...byVersion.values()].sort((a, b) => b.version - a.version);
}

/** Options of {@link restoreProcedure}. */
export interface RestoreProcedureOptions {
  /**
   * Why it is restored.
   * @default "restored version N"
   */
  reason?: string;
  /** Who restores it. @default the current actor's identity */
  identity?: string;
  /**
   * Bounds on the change; a restore is usually a large change, so only the
   * length is checked by default.
   * @default { maxChangedLines: Infinity }
   */
  limits?: ProcedureLimits;
}

/**
 * Puts an earlier version back as the current instructions, as a NEW version
 * (`source: "restore"`, `restoredFrom`), so the restore itself can be undone.
 * Throws InvalidArgumentError for a version that was never kept.
 */
export async function restoreProcedure(store: BaseStore, scope: ProcedureScope, version: number, options: RestoreProcedureOptions = {}): Promise<ProcedureChange> {
  if (!Number.isSafeInteger(version) || version < 1) throw new InvalidArgumentError(`version must be a positive integer, got ${JSON.stringify(version)}`);
  const target = (await procedureHistory(store, scope)).find((r) => r.version === version);
  if (!target) {
    throw new InvalidArgumentError(`no version ${version} of the instructions of ${JSON.stringify(procedureLocation(scope).namespace)}`);
  }
  return setProcedure(store, scope, {
    instructions: target.instructions,
    reason: options.reason ?? `restored version ${version}`,
    source: "restore",
    restoredFrom: version,
    ...(options.identity === undefined ? {} : { identity: options.identity }),
    limits: { maxChangedLines: Infinity, ...options.limits },
  });
}
