import { createHash } from "node:crypto";
import { contentText } from "../scope/message-text.js";
import type { BaseMessage } from "@langchain/core/messages";

/** An OpenAI-style chat message: `{ role: "user", content: "hi" }`. */
export interface RoleMessage {
  role: string;
  content: unknown;
  id?: string;
}

/** Either a LangChain message or an OpenAI-style `{ role, content }` object. */
export type ConversationMessage = BaseMessage | RoleMessage;

/** A message reduced to what the extractor reads. */
export interface PlainMessage {
  /** `user`, `assistant`, `system` or `tool`. */
  role: string;
  text: string;
  /** A stable fingerprint of the message (its id when it has one). */
  fingerprint: string;
}

const ROLE_BY_TYPE: Record<string, string> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "tool",
  generic: "user",
};

function roleOf(message: ConversationMessage): string {
  const m = message as { role?: unknown; _getType?: () => string; getType?: () => string; type?: unknown };
  let raw: string | undefined;
  if (typeof m.getType === "function") raw = m.getType();
  else if (typeof m._getType === "function") raw = m._getType();
  else if (typeof m.role === "string") raw = m.role;
  else if (typeof m.type === "string") raw = m.type;
  return ROLE_BY_TYPE[raw ?? ""] ?? raw ?? "user";
}

/** Reduces LangChain or OpenAI-style messages to `{ role, text, fingerprint }`. */
export function toPlainMessages(messages: readonly ConversationMessage[]): PlainMessage[] {
  return messages.map((message) => {
    const role = roleOf(message);
    const text = contentText((message as { content?: unknown }).content).trim();
    const id = (message as { id?: unknown }).id;
    const fingerprint =
      typeof id === "string" && id.length > 0
        ? `id:${id}`
        : `h:${createHash("sha256").update(role).update("\u0000").update(text).digest("hex").slice(0, 24)}`;
    return { role, text, fingerprint };
  });
}

/**
 * Renders the user and assistant turns as a transcript. System messages
 * (which carry recalled memories) and tool results (which carry search hits)
 * are left out, so that the extractor does not re-extract what memory already
 * holds.
 */
export function renderTranscript(messages: readonly PlainMessage[]): string {
  return messages
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.text.length > 0)
    .map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${m.text}`)
    .join("\n");
}

/** Lower-cases, trims and collapses whitespace and trailing punctuation, for keys and equality. */
export function normaliseFact(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s.!;,]+$/u, "");
}

/** A stable store key for a fact: `fact-` + 24 hex digits of SHA-256 of its normalised text. */
export function factKey(text: string): string {
  return `fact-${createHash("sha256").update(normaliseFact(text)).digest("hex").slice(0, 24)}`;
}
