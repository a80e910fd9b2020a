/**
 * Long-term memory in a langchain v1 `createAgent`, with `memoryMiddleware`.
 * The pieces are real (HNSWStore on disk, the USE-lite embedder, the
 * MemoryExtractor, a SQLite checkpointer); the chat model is the chatbot
 * example's OFFLINE SCRIPTED STAND-IN, unless you pass a real one.
 */
import path from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { HNSWStore, MemoryExtractor, UniversalSentenceEncoderEmbeddings } from "../../src/index.js";
import { memoryMiddleware } from "../../src/agent/index.js";

/** The namespace template: one memory space per authenticated user. */
export const NAMESPACE = ["users", "{user_id}"];

/** Options of {@link openMemoryAgent}. */
export interface MemoryAgentOptions {
  /** Directory for `memory/` (the store) and `threads.sqlite` (the checkpointer). */
  dataDir: string;
  /** The chat model (the agent's and the extractor's). */
  model: BaseChatModel;
  /** How memories reach the model. @default "preload" */
  mode?: "preload" | "postload" | "both";
}

/** A createAgent with memory, its store, and a one-line chat function. */
export function openMemoryAgent(options: MemoryAgentOptions) {
  const store = new HNSWStore({
    path: path.join(options.dataDir, "memory"),
    index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] },
  });
  const checkpointer = SqliteSaver.fromConnString(path.join(options.dataDir, "threads.sqlite"));
  const agent = createAgent({
    model: options.model,
    tools: [],
    systemPrompt: "You are a friendly cooking assistant.",
    checkpointer,
    store,
    middleware: [
      memoryMiddleware({
        namespace: NAMESPACE,
        mode: options.mode ?? "preload",
        extract: { extractor: new MemoryExtractor({ model: options.model }), debounceSeconds: 0 },
      }),
    ],
  });

  /** One user turn in a thread; the user id comes from YOUR authentication. */
  async function chat(userId: string, thread: string, text: string): Promise<string> {
    const out = await agent.invoke(
      { messages: [{ role: "user", content: text }] },
      { configurable: { thread_id: thread }, context: { user_id: userId } },
    );
    const messages = out.messages as BaseMessage[];
    return messages[messages.length - 1]?.text ?? "";
  }

  return { agent, store, checkpointer, chat };
}
