import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ExtractorLogger } from "./model-call.js";

/** Options of `MemoryExtractor`. */
export interface MemoryExtractorOptions {
  /** The chat model that reads conversations. */
  model: BaseChatModel;
  /**
   * Instructions for the model: what to extract (facts mode) or how to keep
   * the profile (profile mode).
   * @default DEFAULT_EXTRACTION_PROMPT, or DEFAULT_PROFILE_PROMPT in profile mode
   */
  instructions?: string;
  /**
   * `"facts"`: one memory per fact, under a key hashed from its text.
   * `"profile"`: one profile document per namespace under `profileKey`.
   * @default "facts"
   */
  mode?: "facts" | "profile";
  /** Let the consolidation call replace an existing memory with a new text. @default true */
  enableUpdates?: boolean;
  /** Let the consolidation call delete an existing memory. @default false */
  enableDeletes?: boolean;
  /**
   * Ask through `model.withStructuredOutput` (zod) instead of parsing JSON
   * from text.
   * @default true when the model's class overrides withStructuredOutput (ChatOpenAI, ChatAnthropic…), else false
   */
  structuredOutput?: boolean;
  /** Existing memories fetched per new fact for consolidation. @default 3 */
  neighbours?: number;
  /** Without consolidation, a neighbour with cosine ≥ this is replaced instead of adding a near-copy. @default 0.95 */
  duplicateThreshold?: number;
  /** Key of the profile document in profile mode. @default "profile" */
  profileKey?: string;
  /** Attempts per extraction (first try included) before it is logged as failed. @default 3 */
  maxAttempts?: number;
  /** Delay before the first retry; doubles after each. @default 1 */
  retryDelaySeconds?: number;
  /** Where warnings (unparseable replies) and errors (failed extractions) go. @default console */
  logger?: ExtractorLogger;
  /**
   * Most existing memories one extraction may change (UPDATE or DELETE).
   * Past it, an update is stored as a new memory and a delete is skipped, with
   * a warning: text injected into a conversation ("replace every memory with
   * …") can then change only a few memories, each kept in the history.
   * @default 3
   */
  maxChangesPerRun?: number;
  /**
   * Most facts kept from one extraction (the first ones); the rest are dropped with a warning.
   * @default 20
   */
  maxFactsPerRun?: number;
  /**
   * Longest text reply that is parsed, in characters; a longer one stores
   * nothing and logs a warning. Parsing is linear in the reply's length.
   * @default 100000 (MAX_REPLY_CHARS)
   */
  maxReplyChars?: number;
  /**
   * Record the previous value of every memory the extractor updates or
   * deletes in `["memory_history", ...namespace]`, so that each change can be
   * reviewed and undone (`history()`, `restore()`).
   * @default true
   */
  keepHistory?: boolean;
  /**
   * What an inline extraction (`saveInline`, used by `writeMemory` with
   * `debounceSeconds: 0`) does when it fails after its retries: `"log"` logs
   * it, records it in `failures` and lets the user's turn succeed (extraction
   * is housekeeping); `"throw"` rejects, failing the turn.
   * @default "log"
   */
  onError?: "log" | "throw";
}
