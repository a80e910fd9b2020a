import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import type { BaseMessage } from "@langchain/core/messages";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

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
