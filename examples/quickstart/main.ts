// Quick start: long-term memory that one user's threads share.
//
//   npm run quickstart                      offline: a SCRIPTED chat model, everything else real
//   OPENAI_API_KEY=sk-… npm run quickstart  the same file with a real model (OPENAI_MODEL, default gpt-4o-mini)
//   OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=llama3.2 npm run quickstart   a local OpenAI-compatible server
//
// In your project the first import below reads `from "langgraph-hnsw-memory"`.
import {
  CONSOLIDATION_PROMPT,
  DEFAULT_EXTRACTION_PROMPT,
  HNSWStore,
  localMemoryIndex,
  MEMORY_CONTEXT_HEADER,
  MemoryExtractor,
  withMemory,
} from "../../src/index.js";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import fs from "node:fs";
import path from "node:path";

// Where the memories (a store directory) and the threads (a SQLite file) live.
const dataDir = path.resolve(process.argv[2] ?? "quickstart-data");
fs.mkdirSync(dataDir, { recursive: true });

// 1. The store: HNSW vectors on disk, embedded by the bundled local model (no network, no key):
//    localMemoryIndex() is { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] },
//    the index `langgraph-memory init` records, so the CLI and this file open the same directory.
const store = new HNSWStore({ path: path.join(dataDir, "memory"), index: localMemoryIndex() });

// 2. The chat model: a real one when configured, else a stand-in that says what it is.
const model = await chooseModel();

// 3. The graph: recall before each model call, extraction of new facts after each turn.
const extractor = new MemoryExtractor({ model });
const graph = withMemory(new StateGraph(MessagesAnnotation), {
  model,
  namespace: ["users", "{user_id}"], // filled from config.configurable.user_id on every run
  mode: "preload",
  store,
  extract: { extractor, debounceSeconds: 0 }, // 0: extract inline, before invoke returns
}).compile({ checkpointer: SqliteSaver.fromConnString(path.join(dataDir, "threads.sqlite")), store });

// 4. Two threads of the same user. The user id comes from YOUR authentication, never from the chat.
const userId = "ada";
async function say(threadId: string, text: string): Promise<string> {
  console.log(`[${threadId}] user:      ${text}`);
  const result = await graph.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: threadId, user_id: userId } });
  const reply = String(result.messages.at(-1)?.content ?? "");
  console.log(`[${threadId}] assistant: ${reply}\n`);
  return reply;
}

await say("monday", "Hi! I'm vegetarian and I'm allergic to peanuts.");
await extractor.flush(); // with debounceSeconds > 0 this waits for background extraction

console.log(`memories of user ${userId}, kept in ${path.join(dataDir, "memory")}:`);
for (const item of await store.search(["users", userId], { limit: 10 })) console.log(`  - ${item.value.text}`);
console.log();

// A new thread starts with no messages; what it knows about Ada comes from the store.
await say("friday", "What should I cook for dinner tonight?");

await store.close(); // flushes and releases the directory

// ---------------------------------------------------------------------------
// The model. ChatOpenAI (an optional peer: npm install @langchain/openai) when
// OPENAI_API_KEY or OPENAI_BASE_URL is set; otherwise a SCRIPTED STAND-IN.

async function chooseModel(): Promise<BaseChatModel> {
  const { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL, OPENAI_MODEL } = process.env;
  if (!apiKey && !baseURL) {
    console.log("model: SCRIPTED STAND-IN, not a language model (canned replies, no network).");
    console.log("       The store, the embedder, recall and extraction are real. Set OPENAI_API_KEY for a real model.\n");
    return scriptedChatModel();
  }
  const { ChatOpenAI } = await import("@langchain/openai");
  const name = OPENAI_MODEL ?? "gpt-4o-mini";
  console.log(`model: ${name} at ${baseURL ?? "api.openai.com"}\n`);
  // A local server (Ollama, llama.cpp, vLLM) takes any key.
  return new ChatOpenAI({ model: name, apiKey: apiKey || "local", configuration: baseURL ? { baseURL } : undefined });
}

/**
 * SCRIPTED STAND-IN for a chat model, so the quick start runs offline. It
 * follows three fixed rules; it understands nothing:
 * - asked to extract facts (the extractor's prompt), it turns each
 *   "I'm X" of the user into "User is X.";
 * - asked to consolidate, it adds every new fact it does not already see;
 * - in a chat turn, it repeats the remembered facts it was given.
 */
function scriptedChatModel(): BaseChatModel {
  const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  const reply = (messages: BaseMessage[]): string => {
    const system = messages.filter((m) => m.getType() === "system").map(text).join("\n");
    const user = text(messages.at(-1)!);
    if (system.includes(DEFAULT_EXTRACTION_PROMPT)) {
      const said = user.split("\n").filter((line) => line.startsWith("User: "));
      return JSON.stringify(said.flatMap((line) => [...line.matchAll(/\bI(?:'m| am) ([^.,!?]+?)(?= and |[.,!?]|$)/gi)].map((m) => `User is ${m[1].trim()}.`)));
    }
    if (system.includes(CONSOLIDATION_PROMPT)) {
      const existing = [...user.matchAll(/^m\d+: (.*)$/gm)].map((m) => m[1].toLowerCase());
      const fresh = [...user.matchAll(/^(f\d+): (.*)$/gm)];
      return JSON.stringify(fresh.map(([, fact, t]) => (existing.includes(t.toLowerCase()) ? { fact, action: "NONE" } : { fact, action: "ADD", text: t })));
    }
    const context = system.includes(MEMORY_CONTEXT_HEADER) ? system.slice(system.indexOf(MEMORY_CONTEXT_HEADER)) : "";
    const remembered = [...context.matchAll(/^- (.*)$/gm)].map((m) => m[1]);
    return remembered.length ? `(scripted) From what I remember: ${remembered.join(" ")}` : "(scripted) Noted.";
  };
  class ScriptedChatModel extends BaseChatModel {
    _llmType(): string {
      return "scripted-stand-in";
    }
    async _generate(messages: BaseMessage[]): Promise<ChatResult> {
      const content = reply(messages);
      return { generations: [{ text: content, message: new AIMessage(content) }] };
    }
  }
  return new ScriptedChatModel({});
}
