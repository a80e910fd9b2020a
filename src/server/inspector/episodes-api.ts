import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../../errors.js";
import { namespaceKey } from "../../store/namespace.js";
import { scanPrefix, type PageRequest } from "./listing.js";

/** One conversation (thread) of an episode namespace, as the inspector lists it. */
export interface InspectorThread {
  threadId: string;
  /** Turns recorded for the thread. */
  turns: number;
  /** ISO times of the first and last recorded turn. */
  firstAt: string;
  lastAt: string;
  /** Session dates (`YYYY-MM-DD`) the thread spans, oldest first. */
  dates: string[];
  /** Who spoke, in order of first appearance. */
  speakers: string[];
  /** The first turn's text, clipped. */
  preview: string;
}

/** One turn of a thread, as the inspector shows it. */
export interface InspectorTurn {
  key: string;
  turn: number;
  speaker: string;
  role: string;
  text: string;
  timestamp: string;
  date: string;
}

interface TurnValue {
  text?: unknown;
  speaker?: unknown;
  role?: unknown;
  threadId?: unknown;
  turn?: unknown;
  timestamp?: unknown;
  date?: unknown;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function toTurn(key: string, v: TurnValue): (InspectorTurn & { threadId: string }) | undefined {
  if (typeof v.text !== "string" || typeof v.threadId !== "string" || typeof v.turn !== "number") return undefined;
  return {
    key,
    threadId: v.threadId,
    turn: v.turn,
    speaker: String(v.speaker ?? v.role ?? "user"),
    role: String(v.role ?? ""),
    text: v.text,
    timestamp: String(v.timestamp ?? ""),
    date: String(v.date ?? ""),
  };
}

/** The threads recorded in `namespace` (its own items, not those of namespaces below it), most recent first. */
export async function listThreads(
  store: BaseStore,
  namespace: string[],
  options: PageRequest & { filter?: string },
): Promise<{ threads: InspectorThread[]; total: number; complete: boolean }> {
  const { items, complete } = await scanPrefix(store, namespace);
  const own = namespaceKey(namespace);
  const byThread = new Map<string, (InspectorTurn & { threadId: string })[]>();
  for (const item of items) {
    if (namespaceKey(item.namespace) !== own) continue;
    const t = toTurn(item.key, item.value as TurnValue);
    if (!t) continue;
    let list = byThread.get(t.threadId);
    if (!list) byThread.set(t.threadId, (list = []));
    list.push(t);
  }
  const needle = (options.filter ?? "").trim().toLowerCase();
  const threads: InspectorThread[] = [];
  for (const [threadId, turns] of byThread) {
    if (needle && !threadId.toLowerCase().includes(needle) && !turns.some((t) => t.text.toLowerCase().includes(needle) || t.speaker.toLowerCase().includes(needle))) continue;
    turns.sort((a, b) => a.turn - b.turn);
    const stamps = turns.map((t) => t.timestamp).filter(Boolean).sort();
    threads.push({
      threadId,
      turns: turns.length,
      firstAt: stamps[0] ?? "",
      lastAt: stamps[stamps.length - 1] ?? "",
      dates: [...new Set(turns.map((t) => t.date).filter(Boolean))].sort(),
      speakers: [...new Set(turns.map((t) => t.speaker))],
      preview: clip(turns[0]!.text, 140),
    });
  }
  threads.sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : a.threadId < b.threadId ? -1 : 1));
  return { threads: threads.slice(options.offset, options.offset + options.limit), total: threads.length, complete };
}

/** The turns of one thread of `namespace`, in conversation order. */
export async function threadTurns(
  store: BaseStore,
  namespace: string[],
  threadId: unknown,
  page: PageRequest,
): Promise<{ threadId: string; turns: InspectorTurn[]; total: number; complete: boolean }> {
  if (typeof threadId !== "string" || threadId === "") throw new InvalidArgumentError(`thread must be a non-empty string, got ${JSON.stringify(threadId)}`);
  const { items, complete } = await scanPrefix(store, namespace, { filter: { threadId } });
  const own = namespaceKey(namespace);
  const turns: InspectorTurn[] = [];
  for (const item of items) {
    if (namespaceKey(item.namespace) !== own) continue;
    const t = toTurn(item.key, item.value as TurnValue);
    if (t && t.threadId === threadId) turns.push({ key: t.key, turn: t.turn, speaker: t.speaker, role: t.role, text: t.text, timestamp: t.timestamp, date: t.date });
  }
  turns.sort((a, b) => a.turn - b.turn || (a.key < b.key ? -1 : 1));
  return { threadId, turns: turns.slice(page.offset, page.offset + page.limit), total: turns.length, complete };
}
