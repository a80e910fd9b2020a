import type { BaseStore, Item, Operation, PutOperation } from "@langchain/langgraph-checkpoint";
import { currentActor, runAsActor } from "../privacy/actor.js";
import { versionPut } from "../privacy/history.js";
import type { WriteOp } from "./consolidate.js";
import type { ExtractorLogger } from "./model-call.js";

/** A memory written, updated or deleted by `MemoryExtractor.save`. */
export interface SavedMemory {
  key: string;
  text: string;
  /** For updates: the key and text that were replaced (the same key when updated in place). */
  previousKey?: string;
  previousText?: string;
}

/** What `MemoryExtractor.save` changed. */
export interface SaveResult {
  added: SavedMemory[];
  updated: SavedMemory[];
  deleted: SavedMemory[];
}

/** The value stored for each extracted memory. */
export interface ExtractedMemoryValue {
  text: string;
  source: "extractor";
  thread?: string;
  profile?: Record<string, unknown>;
  /**
   * Key of the memory this one replaced (an update written under a new key).
   * Searches rank a replaced memory behind its replacement should both be
   * stored (a restored version, an import); see store/superseded.ts.
   */
  supersedes?: string;
  [field: string]: unknown;
}

/** True when `op` replaces or removes an existing memory's text. */
function isChange(op: WriteOp): boolean {
  if (op.kind === "delete") return true;
  return op.previousKey !== undefined && (op.previousKey !== op.key || op.previousText !== op.text);
}

/**
 * Bounds what one extraction may change: the first `max` updates and deletes
 * are kept; past that, an update is stored as a new memory (the old one stays)
 * and a delete is dropped, with one warning. A conversation that tells the
 * model to "replace every memory" can then change at most `max` of them, and
 * each change it makes is kept in the history.
 */
export function capChanges(ops: readonly WriteOp[], max: number, logger: ExtractorLogger): WriteOp[] {
  let changes = 0;
  let asNew = 0;
  let dropped = 0;
  const out: WriteOp[] = [];
  for (const op of ops) {
    if (!isChange(op) || changes < max) {
      if (isChange(op)) changes++;
      out.push(op);
    } else if (op.kind === "delete") {
      dropped++;
    } else {
      asNew++;
      out.push({ kind: "put", key: op.key, text: op.text, ...(op.profile ? { profile: op.profile } : {}) });
    }
  }
  if (asNew + dropped > 0) {
    logger.warn(
      `memory extractor: this run asked to change ${changes + asNew + dropped} existing memories, over maxChangesPerRun (${max}); ` +
        `${asNew} update(s) were stored as new memories instead and ${dropped} delete(s) were skipped`,
    );
  }
  return out;
}

/** Options of {@link applyWrites}. */
export interface ApplyWritesOptions {
  /** Time to live of written memories, in minutes. */
  ttl?: number;
  threadId?: string;
  /** Record the previous version of every memory updated or deleted (see `listHistory`). */
  keepHistory: boolean;
}

/**
 * True for a store that already records versions of every update and delete
 * itself (a `ProtectedStore` with `history: true`), so the extractor must not
 * record them a second time.
 */
function storeKeepsHistory(store: BaseStore): boolean {
  const s = store as { inner?: unknown; options?: { history?: unknown } };
  return s.inner !== undefined && s.options?.history === true;
}

/**
 * Applies planned writes in order, attributed to the `"extractor"` actor.
 * With `keepHistory`, each memory replaced or deleted is first recorded as a
 * version in `["memory_history", ...namespace]` (the format of `listHistory`
 * and `restoreVersion`), in the same batch as the change, so nothing the
 * extractor does is irreversible.
 */
export async function applyWrites(store: BaseStore, namespace: readonly string[], ops: readonly WriteOp[], options: ApplyWritesOptions, result: SaveResult): Promise<void> {
  const record = options.keepHistory && !storeKeepsHistory(store);
  await runAsActor({ source: "extractor" }, () => applyAll(store, [...namespace], ops, options, record, result));
}

async function applyAll(store: BaseStore, ns: string[], ops: readonly WriteOp[], options: ApplyWritesOptions, record: boolean, result: SaveResult): Promise<void> {
  const deletedKeys = new Set<string>();
  const identity = currentActor()?.identity;
  const version = (previous: Item, op: "update" | "delete"): Operation => versionPut(previous, { op, source: "extractor", identity });
  for (const op of ops) {
    if (op.kind === "delete") {
      const previous = record ? await store.get(ns, op.key) : null;
      await store.batch([...(previous ? [version(previous, "delete")] : []), { namespace: ns, key: op.key, value: null }]);
      deletedKeys.add(op.key);
      result.deleted.push({ key: op.key, text: op.text });
      continue;
    }
    const value: ExtractedMemoryValue = { text: op.text, source: "extractor" };
    if (options.threadId) value.thread = options.threadId;
    if (op.profile) value.profile = op.profile;
    let previousKey = op.previousKey;
    let previousText = op.previousText;
    const same = await store.get(ns, op.key);
    if (previousKey === undefined && same) {
      previousKey = op.key;
      previousText = String((same.value as { text?: unknown }).text ?? "");
    }
    const replaces = previousKey !== undefined && previousKey !== op.key && !deletedKeys.has(previousKey);
    // Not for an update capChanges stored as new (no previousKey then): a capped rewrite must not outrank what it tried to replace.
    if (replaces) value.supersedes = previousKey;
    const batch: Operation[] = [];
    // The memory overwritten in place (unless only its thread changed), and the one this update replaces.
    if (record && same && !sameMemory(same.value, value)) batch.push(version(same, "update"));
    const replaced = replaces && record ? await store.get(ns, previousKey!) : null;
    if (replaced) batch.push(version(replaced, "update"));
    batch.push(putOp(ns, op.key, value, options.ttl));
    if (replaces) batch.push({ namespace: ns, key: previousKey!, value: null });
    await store.batch(batch);
    if (replaces) deletedKeys.add(previousKey!);
    deletedKeys.delete(op.key);
    const saved: SavedMemory = { key: op.key, text: op.text };
    if (previousKey !== undefined) result.updated.push({ ...saved, previousKey, previousText });
    else result.added.push(saved);
  }
}

/** Same text and profile (a fact seen again on another thread is not a change). */
function sameMemory(stored: Record<string, unknown>, next: ExtractedMemoryValue): boolean {
  return stored.text === next.text && JSON.stringify(stored.profile) === JSON.stringify(next.profile);
}

/** A put; `ttl` (minutes) rides on the operation for stores that read it (the base PutOperation has no ttl field yet). */
function putOp(namespace: string[], key: string, value: ExtractedMemoryValue, ttl?: number): PutOperation {
  const op: PutOperation & { ttl?: number } = { namespace, key, value };
  if (ttl !== undefined) op.ttl = ttl;
  return op;
}
