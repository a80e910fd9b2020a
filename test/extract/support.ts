import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import type { BaseMessage } from "@langchain/core/messages";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel, type ScriptedTurn } from "../helpers/scripted-chat-model.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";

/** A logger that records instead of printing. */
export function recordingLogger() {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    warn: (message: string) => void warnings.push(message),
    error: (message: string) => void errors.push(message),
  };
}

/** InMemoryStore with the deterministic FakeEmbeddings TEST DOUBLE as its index. */
export function memoryStore(dims = 64) {
  return new InMemoryStore({ index: { dims, embeddings: new FakeEmbeddings({ dims }), fields: ["text"] } });
}

/** The text of every message a scripted model received in one call, joined. */
export function callText(call: BaseMessage[]): string {
  return call.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

/** The human part of a call (the conversation or the consolidation batch). */
export function userText(call: BaseMessage[]): string {
  const last = call[call.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

export const NS = ["users", "42"];

/** A MemoryExtractor on the ScriptedChatModel TEST DOUBLE, a recording logger and an empty store. */
export function extractorSetup(turns: ScriptedTurn[], options: Partial<ConstructorParameters<typeof MemoryExtractor>[0]> = {}) {
  const model = new ScriptedChatModel({ turns });
  const logger = recordingLogger();
  const extractor = new MemoryExtractor({ model, logger, retryDelaySeconds: 0.01, ...options });
  return { model, logger, extractor, store: memoryStore() };
}

/** One user message, as extract() takes it. */
export const say = (text: string) => [{ role: "user", content: text }];

/** The texts stored under {@link NS}, sorted. */
export const texts = async (store: ReturnType<typeof memoryStore>) => (await store.search(NS, { limit: 50 })).map((i) => i.value.text as string).sort();
