import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { CURSOR_NAMESPACE_ROOT } from "../store/hidden-namespaces.js";
import type { PlainMessage } from "./messages.js";

export { CURSOR_NAMESPACE_ROOT };

/** What the store holds for one thread. */
export interface ExtractionCursor {
  /** How many messages of the thread have been read. */
  processed: number;
  /** Fingerprint of the last message read, to re-find it if the thread was trimmed or edited. */
  last: string;
  /** ISO time of the last extraction. */
  updatedAt: string;
}

/** The namespace holding cursors for memories in `namespace`. */
export function cursorNamespace(namespace: readonly string[]): string[] {
  return [CURSOR_NAMESPACE_ROOT, ...namespace];
}

/** Reads a thread's cursor; undefined when the thread was never extracted. */
export async function readCursor(store: BaseStore, namespace: readonly string[], threadId: string): Promise<ExtractionCursor | undefined> {
  const item = await store.get(cursorNamespace(namespace), threadId);
  const v = item?.value as Partial<ExtractionCursor> | undefined;
  if (!v || typeof v.processed !== "number" || typeof v.last !== "string") return undefined;
  return { processed: v.processed, last: v.last, updatedAt: String(v.updatedAt ?? "") };
}

/** Records that `messages` (the whole thread) have been read. */
export async function writeCursor(store: BaseStore, namespace: readonly string[], threadId: string, messages: readonly PlainMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const cursor: ExtractionCursor = {
    processed: messages.length,
    last: messages[messages.length - 1].fingerprint,
    updatedAt: new Date().toISOString(),
  };
  await store.put(cursorNamespace(namespace), threadId, cursor as unknown as Record<string, unknown>, false);
}

/**
 * The index of the first message not yet read. Normally `cursor.processed`;
 * when the message there is not the one recorded (the thread was trimmed or
 * rewritten), the last recorded message is looked up by fingerprint, and when
 * it is gone the whole thread is read again (stable keys make that harmless).
 */
export function unreadFrom(cursor: ExtractionCursor | undefined, messages: readonly PlainMessage[]): number {
  if (!cursor) return 0;
  const at = cursor.processed - 1;
  if (at >= 0 && at < messages.length && messages[at].fingerprint === cursor.last) return cursor.processed;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].fingerprint === cursor.last) return i + 1;
  return 0;
}
