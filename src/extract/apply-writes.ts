import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { recordVersion } from "../store/history.js";
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
  /** Record the previous value of every memory updated or deleted (see `recordVersion`). */
  keepHistory: boolean;
}

/**
 * Applies planned writes in order. Before a memory is replaced or deleted,
 * its value is recorded in the history namespace (when `keepHistory`), so
 * nothing the extractor does is irreversible.
 */
export async function applyWrites(store: BaseStore, namespace: readonly string[], ops: readonly WriteOp[], options: ApplyWritesOptions, result: SaveResult): Promise<void> {
  const ns = [...namespace];
  const deletedKeys = new Set<string>();
  const at = new Date();
  const remember = async (key: string, change: "update" | "delete", details: Record<string, unknown>) => {
    if (!options.keepHistory) return;
    const current = await store.get(ns, key);
    if (!current) return;
    if (options.threadId) details.thread = options.threadId;
    await recordVersion(store, ns, key, current.value, { source: "extractor", change, at, details });
  };
  for (const op of ops) {
    if (op.kind === "delete") {
      await remember(op.key, "delete", {});
      await store.delete(ns, op.key);
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
    // The memory overwritten in place, and the one this update replaces.
    if (same && !sameMemory(same.value, value)) await remember(op.key, "update", {});
    const replaces = previousKey !== undefined && previousKey !== op.key && !deletedKeys.has(previousKey);
    if (replaces) await remember(previousKey!, "update", { replacedBy: op.key });
    await put(store, ns, op.key, value, options.ttl);
    if (replaces) {
      await store.delete(ns, previousKey!);
      deletedKeys.add(previousKey!);
    }
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

async function put(store: BaseStore, namespace: string[], key: string, value: ExtractedMemoryValue, ttl?: number): Promise<void> {
  if (ttl === undefined) await store.put(namespace, key, value);
  // The base PutOperation has no ttl field yet; stores that support expiry read it from the operation.
  else await store.batch([{ namespace, key, value, ttl } as unknown as { namespace: string[]; key: string; value: Record<string, unknown> }]);
}
