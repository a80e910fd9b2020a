import { mkdirSync } from "node:fs";
import path from "node:path";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Embeddings } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  CURSOR_NAMESPACE_ROOT,
  HNSWStore,
  MemoryExtractor,
  encodeLabel,
  isMemoryContextMessage,
  withMemory,
  type MemoryMode,
  type SaveResult,
} from "../../src/index.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
// Not in the public API: text helpers.
import { memoryText } from "../../src/graph/format-memories.js";
import { messageText } from "../../src/scope/message-text.js";

/** The memory namespace template: one scope per user. */
export const NAMESPACE = ["users", "{user_id}"] as const;

/** Files and directories the chatbot keeps in its data directory. */
export const DATA_LAYOUT = { memory: "memory", threads: "threads.sqlite" } as const;

/** Options of {@link ChatSession.open}. */
export interface ChatSessionOptions {
  /** Data directory: memories in `memory/`, threads in `threads.sqlite`. Created if missing. */
  dataDir: string;
  userId: string;
  thread: string;
  /** How memories reach the model. @default "preload" */
  mode?: MemoryMode;
  model: BaseChatModel;
  embeddings: Embeddings;
  dims: number;
  /** Your system prompt for the chat model. @default a short assistant prompt */
  systemPrompt?: string;
  /**
   * PostgreSQL connection string: memories go to a PostgresMemoryStore there
   * (pgvector needed) instead of `memory/` in the data directory.
   * @default undefined
   */
  postgres?: string;
  /** Where the extractor's warnings go. @default console */
  logger?: { warn(message: string, ...details: unknown[]): void; error(message: string, ...details: unknown[]): void };
}

/** One remembered fact, as `/memories` shows it. */
export interface MemoryEntry {
  key: string;
  text: string;
  updatedAt: Date;
}

/** What one chat turn produced. */
export interface TurnResult {
  reply: string;
  /** The `[Long-term Memory Context]` system message the chat model received (last call of the turn), if any. */
  context?: string;
  /** What the extractor added, updated or deleted after the turn. */
  saved?: SaveResult;
}

/** Records the extractor's result of each save, so the CLI can show what was learned. */
class RecordingExtractor extends MemoryExtractor {
  last?: SaveResult;
  override async save(...args: Parameters<MemoryExtractor["save"]>): Promise<SaveResult> {
    const result = await super.save(...args);
    this.last = result;
    return result;
  }
}

/** Captures the memory-context system message of every chat-model call, whatever the model. */
class ContextCapture extends BaseCallbackHandler {
  name = "memory-context-capture";
  contexts: string[] = [];
  constructor() {
    super({ _awaitHandler: true });
  }
  override handleChatModelStart(_llm: unknown, messages: BaseMessage[][]): void {
    for (const list of messages) {
      const context = list.find(isMemoryContextMessage);
      if (context) this.contexts.push(messageText(context));
    }
  }
}

/** Thread ids are per user, so two users' "main" threads never mix. */
export function threadId(userId: string, thread: string): string {
  return `${encodeURIComponent(userId)}/${encodeURIComponent(thread)}`;
}

function buildGraph(options: ChatSessionOptions, mode: MemoryMode, store: HNSWStore | PostgresMemoryStore, checkpointer: SqliteSaver, extractor: MemoryExtractor) {
  return withMemory(new StateGraph(MessagesAnnotation), {
    model: options.model,
    mode,
    namespace: NAMESPACE,
    store,
    extract: extractor,
    systemPrompt:
      options.systemPrompt ??
      "You are a friendly assistant with long-term memory. Use what you remember about the user when it helps, and keep replies short.",
  }).compile({ checkpointer, store });
}

/**
 * A chatbot session over one data directory: a graph built with `withMemory`,
 * threads checkpointed in SQLite, memories in an HNSWStore. The user and the
 * thread can change between turns.
 */
export class ChatSession {
  userId: string;
  thread: string;
  readonly mode: MemoryMode;
  readonly store: HNSWStore | PostgresMemoryStore;
  readonly checkpointer: SqliteSaver;
  private readonly extractor: RecordingExtractor;
  private readonly graph: ReturnType<typeof buildGraph>;

  private constructor(options: ChatSessionOptions, store: HNSWStore | PostgresMemoryStore, checkpointer: SqliteSaver) {
    this.userId = options.userId;
    this.thread = options.thread;
    this.mode = options.mode ?? "preload";
    this.store = store;
    this.checkpointer = checkpointer;
    this.extractor = new RecordingExtractor({ model: options.model, logger: options.logger });
    this.graph = buildGraph(options, this.mode, store, checkpointer, this.extractor);
  }

  /** Opens (creating if needed) the data directory. Call {@link close} when done. */
  static async open(options: ChatSessionOptions): Promise<ChatSession> {
    mkdirSync(options.dataDir, { recursive: true });
    const index = { dims: options.dims, embeddings: options.embeddings, fields: ["text"] };
    const store = options.postgres
      ? // One connection is plenty for one chat process.
        new PostgresMemoryStore({ connectionString: options.postgres, poolConfig: { max: 1 }, index })
      : new HNSWStore({ path: path.join(options.dataDir, DATA_LAYOUT.memory), index });
    if (store instanceof HNSWStore) await store.open();
    else await store.setup();
    const checkpointer = SqliteSaver.fromConnString(path.join(options.dataDir, DATA_LAYOUT.threads));
    return new ChatSession(options, store, checkpointer);
  }

  /** The namespace of the current user's memories. */
  get namespace(): string[] {
    return ["users", encodeLabel(this.userId)];
  }

  /** Sends one user message on the current thread and returns the reply. */
  async send(text: string): Promise<TurnResult> {
    const capture = new ContextCapture();
    this.extractor.last = undefined;
    const out = await this.graph.invoke(
      { messages: [new HumanMessage(text)] },
      { configurable: { thread_id: threadId(this.userId, this.thread), user_id: this.userId }, callbacks: [capture] },
    );
    const messages = out.messages as BaseMessage[];
    return {
      reply: messageText(messages[messages.length - 1]),
      context: capture.contexts[capture.contexts.length - 1],
      saved: this.extractor.last,
    };
  }

  /** The current user's memories, newest first. */
  async memories(): Promise<MemoryEntry[]> {
    const ns = this.namespace;
    const items = await this.store.search(ns, { limit: 1000 });
    return items
      .filter((i) => i.namespace.length === ns.length && i.namespace.every((l, n) => l === ns[n]))
      .sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime())
      .map((i) => ({ key: i.key, text: memoryText(i), updatedAt: new Date(i.updatedAt) }));
  }

  /** Deletes one memory of the current user; false when there is none with that key. */
  async forget(key: string): Promise<boolean> {
    if (!(await this.store.get(this.namespace, key))) return false;
    await this.store.delete(this.namespace, key);
    return true;
  }

  /**
   * Deletes everything kept about the current user: memories, extraction
   * cursors and conversation threads. The store is compacted and the SQLite
   * file vacuumed, so the deleted text leaves the disk.
   */
  async forgetAll(): Promise<{ memories: number; threads: number }> {
    const memories = await this.store.deleteNamespace(this.namespace);
    await this.store.deleteNamespace([CURSOR_NAMESPACE_ROOT, ...this.namespace]);
    if (this.store instanceof HNSWStore) await this.store.compact();
    const threads = await this.deleteThreads();
    return { memories, threads };
  }

  /** The current user's thread names that have checkpoints. */
  threads(): string[] {
    return this.userThreadIds().map((id) => decodeURIComponent(id.slice(id.indexOf("/") + 1)));
  }

  private userThreadIds(): string[] {
    const db = this.checkpointer.db;
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
    if (!table) return [];
    const owner = encodeURIComponent(this.userId);
    const rows = db.prepare("SELECT DISTINCT thread_id FROM checkpoints").all() as { thread_id: string }[];
    // Compare the whole user part, never a string prefix ("4" must not match "42").
    return rows.map((r) => r.thread_id).filter((id) => id.slice(0, id.indexOf("/")) === owner);
  }

  private async deleteThreads(): Promise<number> {
    const ids = this.userThreadIds();
    const db = this.checkpointer.db;
    db.pragma("secure_delete = ON");
    for (const id of ids) await this.checkpointer.deleteThread(id);
    db.exec("VACUUM");
    db.pragma("wal_checkpoint(TRUNCATE)");
    return ids.length;
  }

  /** Releases the store's directory lock and closes the SQLite file. */
  async close(): Promise<void> {
    await this.store.close();
    this.checkpointer.db.close();
  }
}
