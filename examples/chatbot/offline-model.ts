import { randomUUID } from "node:crypto";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { CONSOLIDATION_PROMPT, DEFAULT_EXTRACTION_PROMPT, DEFAULT_PROFILE_PROMPT, MEMORY_CONTEXT_HEADER } from "../../src/index.js";
// Not in the public API: helpers the stand-in uses to read its prompts.
import { normaliseFact } from "../../src/extract/messages.js";
import { MEMORY_CONTEXT_PREAMBLE } from "../../src/graph/format-memories.js";
import { messageText } from "../../src/scope/message-text.js";
import { firstPersonFacts } from "./facts.js";

/** What the chatbot prints when this model is in use. */
export const OFFLINE_MODEL_NOTICE = "offline demo model: replies are scripted; memory is real";

/** Dinner ideas, tagged with what they contain, so that recalled facts can rule some out. */
const DINNERS: { dish: string; has: string[] }[] = [
  { dish: "chicken satay with peanut sauce", has: ["meat", "peanuts"] },
  { dish: "mushroom risotto", has: [] },
  { dish: "beef stir-fry", has: ["meat"] },
  { dish: "chickpea and spinach curry", has: [] },
  { dish: "pad thai with crushed peanuts and tofu", has: ["peanuts"] },
  { dish: "grilled halloumi and roasted vegetables", has: [] },
  { dish: "salmon with lemon potatoes", has: ["fish"] },
];

/** Which tags a remembered fact rules out. */
function excluded(facts: string[]): Set<string> {
  const out = new Set<string>();
  for (const f of facts.map((x) => x.toLowerCase())) {
    if (/\bvegan\b|\bvegetarian\b/.test(f)) ["meat", "fish"].forEach((t) => out.add(t));
    if (/\bpescatarian\b/.test(f)) out.add("meat");
    if (/allerg\w*.*\bpeanuts?\b|\bpeanuts?\b.*allerg/.test(f)) out.add("peanuts");
  }
  return out;
}

/** The remembered facts (bullet lines) of a `[Long-term Memory Context]` message. */
export function contextFacts(messages: BaseMessage[]): string[] {
  // The block may follow your own prompt in the same system message (createAgent's middleware).
  const context = messages.find((m) => m.getType() === "system" && messageText(m).includes(MEMORY_CONTEXT_HEADER));
  if (!context) return [];
  const text = messageText(context);
  return text
    .slice(text.indexOf(MEMORY_CONTEXT_HEADER))
    .replace(MEMORY_CONTEXT_HEADER, "")
    .replace(MEMORY_CONTEXT_PREAMBLE, "")
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2).replace(/^\[[^\]]*\]\s*/, "").trim());
}

function dinnerReply(facts: string[]): string {
  const ruledOut = excluded(facts);
  const ideas = DINNERS.filter((d) => !d.has.some((t) => ruledOut.has(t))).slice(0, 3).map((d) => d.dish);
  const because = facts.length > 0 ? `Going by what I remember (${facts.join(" ")}), how about: ` : "How about: ";
  return `${because}${ideas.join(", ")}?`;
}

/** A chat reply built from the user's message and the facts the model was given. */
function chatReply(userText: string, facts: string[]): string {
  const stated = firstPersonFacts(userText);
  if (stated.length > 0) return "Thanks, good to know.";
  if (/\b(dinner|lunch|cook|eat|recipe|meal|food)\b/i.test(userText)) return dinnerReply(facts);
  if (/\b(know|remember)\b.*\b(me|about)\b/i.test(userText)) {
    return facts.length > 0 ? `Here is what I remember about you: ${facts.join(" ")}` : "I don't remember anything about you yet.";
  }
  return facts.length > 0 ? `I hear you. (I have ${facts.length} memor${facts.length === 1 ? "y" : "ies"} about you in context.)` : "I hear you.";
}

/** Reply to the extractor's fact-extraction prompt: a JSON list of facts from the user's lines. */
function extractionReply(userPrompt: string): string {
  const lines = userPrompt.split("\n").filter((l) => l.startsWith("User: "));
  return JSON.stringify([...new Set(lines.flatMap((l) => firstPersonFacts(l.slice("User: ".length))))]);
}

/**
 * Facts that hold one value at a time: "User lives in Berlin." and "User
 * lives in Lisbon." fill the same slot, so the newer one replaces the older.
 */
const SINGLE_VALUED = [/^User lives in /i, /^User's name is /i, /^User works (?:at|as|for) /i, /^User is \d+ years old/i, /^User's ([\w ]+?) (?:is|are) /i];

/** The slot a fact fills (its single-valued predicate), if any. */
function slotOf(fact: string): string | undefined {
  for (const re of SINGLE_VALUED) {
    const m = re.exec(fact.trim());
    if (m) return m[0].toLowerCase().replace(/\d+/g, "#");
  }
  return undefined;
}

/**
 * Reply to the consolidation prompt: NONE for facts already stored word for
 * word, UPDATE when a new fact fills the slot of an existing one ("moved to
 * Lisbon" replaces "lives in Berlin"), ADD for the rest.
 */
function consolidationReply(userPrompt: string): string {
  const existing = new Map<string, string>();
  const slots = new Map<string, string>();
  const fresh: [string, string][] = [];
  let section = "";
  for (const line of userPrompt.split("\n")) {
    if (line.startsWith("EXISTING memories:")) section = "existing";
    else if (line.startsWith("NEW facts:")) section = "new";
    const m = /^(m\d+|f\d+): (.*)$/.exec(line);
    if (!m) continue;
    if (section === "existing") {
      existing.set(normaliseFact(m[2]), m[1]);
      const slot = slotOf(m[2]);
      if (slot && !slots.has(slot)) slots.set(slot, m[1]);
    }
    else if (section === "new") fresh.push([m[1], m[2]]);
  }
  return JSON.stringify(
    fresh.map(([id, text]) => {
      const same = existing.get(normaliseFact(text));
      if (same) return { fact: id, action: "NONE", id: same };
      const slot = slotOf(text);
      const replaces = slot ? slots.get(slot) : undefined;
      return replaces ? { fact: id, action: "UPDATE", id: replaces, text } : { fact: id, action: "ADD", text };
    }),
  );
}

/** Options of {@link OfflineDemoModel}. */
export interface OfflineDemoModelOptions extends BaseChatModelParams {
  /** Names of the bound tools (set by bindTools). @default [] */
  toolNames?: string[];
}

/**
 * OFFLINE STAND-IN FOR AN LLM. Its replies are scripted by rules; it is not a
 * language model. It lets the chatbot and `npm run demo` run with no network
 * and no API key while everything else is real: what it extracts is written
 * through the real MemoryExtractor into the real HNSWStore, and what it is
 * shown was recalled by the real embedder and index.
 *
 * - The extractor's prompt ({@link DEFAULT_EXTRACTION_PROMPT}) gets a JSON
 *   list of the first-person facts in the user's lines ("I'm vegetarian" →
 *   "User is vegetarian.").
 * - The consolidation prompt gets NONE for exact repeats, UPDATE when a new
 *   fact fills the slot of an existing one ("User lives in Lisbon." replaces
 *   "User lives in Berlin."), ADD otherwise.
 * - A chat turn gets a templated reply that uses the facts in the
 *   `[Long-term Memory Context]` message it was given.
 * - With memory tools bound (postload), a statement becomes `remember` calls
 *   and a question a `search_memory` call; the reply after the tool results
 *   uses what the tools returned.
 */
export class OfflineDemoModel extends BaseChatModel {
  readonly toolNames: string[];

  constructor(options: OfflineDemoModelOptions = {}) {
    super(options);
    this.toolNames = options.toolNames ?? [];
  }

  _llmType(): string {
    return "offline-demo-scripted";
  }

  /** Returns a copy that knows the tools' names (it calls them by rule). */
  override bindTools(tools: unknown[]): OfflineDemoModel {
    const names = tools.map((t) => (t as { name?: string }).name ?? "");
    return new OfflineDemoModel({ toolNames: names });
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.reply(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  private reply(messages: BaseMessage[]): AIMessage {
    const system = messages.filter((m) => m.getType() === "system").map(messageText);
    const lastHuman = [...messages].reverse().find((m) => m.getType() === "human");
    const userText = lastHuman ? messageText(lastHuman) : "";
    if (system.some((s) => s.startsWith(DEFAULT_EXTRACTION_PROMPT))) return new AIMessage(extractionReply(userText));
    if (system.some((s) => s.startsWith(CONSOLIDATION_PROMPT))) return new AIMessage(consolidationReply(userText));
    // Profile mode is not scripted: an empty update leaves the profile as it is.
    if (system.some((s) => s.startsWith(DEFAULT_PROFILE_PROMPT))) return new AIMessage("{}");

    const facts = contextFacts(messages);
    const last = messages[messages.length - 1];
    if (last?.getType() === "tool") return new AIMessage(this.afterTools(messages, userText, facts));
    const calls = this.toolCalls(userText, facts.length > 0);
    if (calls.length > 0) return new AIMessage({ content: "", tool_calls: calls });
    return new AIMessage(chatReply(userText, facts));
  }

  /** Tool calls for a user turn, when memory tools are bound. */
  private toolCalls(userText: string, hasContext: boolean): ToolCall[] {
    const stated = firstPersonFacts(userText);
    if (stated.length > 0 && this.toolNames.includes("remember")) {
      return stated.map((content) => ({ id: `call_${randomUUID()}`, name: "remember", args: { content }, type: "tool_call" as const }));
    }
    // In "both" mode the preloaded context already answers; search only without it.
    if (userText.trim().endsWith("?") && !hasContext && this.toolNames.includes("search_memory")) {
      return [{ id: `call_${randomUUID()}`, name: "search_memory", args: { query: userText }, type: "tool_call" as const }];
    }
    return [];
  }

  /** The reply after the tools ran: uses the memories the search returned. */
  private afterTools(messages: BaseMessage[], userText: string, facts: string[]): string {
    const start = messages.map((m) => m.getType()).lastIndexOf("human");
    const results = messages.slice(start + 1).filter((m) => m.getType() === "tool").map(messageText);
    const found = results
      .flatMap((r) => r.split("\n"))
      .filter((l) => l.startsWith("- "))
      .map((l) => l.slice(2).replace(/^\[[^\]]*\]\s*/, "").replace(/\s*\(score [\d.-]+\)$/, ""));
    if (found.length > 0 || results.some((r) => r.startsWith("No memories"))) return chatReply(userText, [...facts, ...found]);
    return `Saved to memory. ${results.join(" ")}`;
  }
}
