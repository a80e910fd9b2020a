import { MAX_TTL_MINUTES } from "../store/ttl.js";
import { OPTION_KEYS } from "../option-keys.js";
import { checkBoolean, checkOptions, checkString } from "../option-checks.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { InvalidArgumentError } from "../errors.js";
import type { MemoryExtractorOptions } from "./options.js";
import { DEFAULT_EXTRACTION_PROMPT, FACTS_FORMAT_PROMPT, PROFILE_FORMAT_PROMPT } from "./prompts.js";
import { cleanFacts, looksSecret, parseFacts, asList, itemText } from "./parse.js";
import { factKey, normaliseFact, renderTranscript, toPlainMessages, type ConversationMessage } from "./messages.js";
import { callModel, supportsStructuredOutput, type ExtractorLogger } from "./model-call.js";
import { readCursor, unreadFrom, writeCursor } from "./cursor.js";
import {
  DecisionsSchema,
  consolidationPrompt,
  duplicateRule,
  findNeighbours,
  parseDecisionsReply,
  planFromDecisions,
  readDecisions,
  type WriteOp,
} from "./consolidate.js";
import { ProfileSchema, mergeProfile, parseProfileReply, profilePrompt, readProfile, renderProfile, type Profile } from "./profile.js";
import { underlyingStore } from "../scope/resolve-store.js";
import { DebouncedScheduler, extractionRunOptions, isRetryable, plural, isStoreClosed, storeClosedMessage, withRetry, type ExtractionFailure } from "./scheduler.js";
import { applyWrites, capChanges, type SaveResult } from "./apply-writes.js";
import { MAX_REPLY_CHARS } from "./parse.js";

export type { ExtractedMemoryValue, SavedMemory, SaveResult } from "./apply-writes.js";

export type { MemoryExtractorOptions } from "./options.js";

/** Options of {@link MemoryExtractor.save}. */
export interface SaveOptions {
  /**
   * Time to live, in minutes, passed on each put operation; honoured by stores that read `ttl` on puts.
   * @default undefined (the store's own default TTL)
   */
  ttl?: number;
  /**
   * The thread the messages come from: recorded on each memory and used for the incremental cursor.
   * @default undefined (no thread recorded, no cursor)
   */
  threadId?: string;
}

const FactsSchema = z.object({ facts: z.array(z.string()).describe("durable facts about the user, one short sentence each") });

/**
 * Reads conversations and writes the facts worth keeping into a LangGraph
 * store, consolidated with what the store already holds.
 *
 * @example
 * ```ts
 * const extractor = new MemoryExtractor({ model, enableDeletes: true });
 * await extractor.save(store, messages, ["users", "42"], { threadId: "t1" });
 * // { added: [{ key: "fact-…", text: "User lives in Lisbon." }], updated: [], deleted: [] }
 * ```
 */
export class MemoryExtractor {
  readonly mode: "facts" | "profile";
  readonly enableUpdates: boolean;
  readonly enableDeletes: boolean;
  readonly structuredOutput: boolean;
  readonly profileKey: string;
  private readonly model: BaseChatModel;
  private readonly instructions?: string;
  private readonly neighbours: number;
  private readonly threshold: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly logger: ExtractorLogger;
  private readonly scheduler: DebouncedScheduler<SaveResult>;
  private readonly storeIds = new WeakMap<BaseStore, number>();
  readonly maxChangesPerRun: number;
  readonly maxFactsPerRun: number;
  readonly maxReplyChars: number;
  readonly keepHistory: boolean;
  readonly onError: "log" | "throw";

  constructor(options: MemoryExtractorOptions) {
    checkOptions(options, "MemoryExtractor options", OPTION_KEYS.extractor, { optional: false });
    const o = options ?? ({} as MemoryExtractorOptions);
    if (!o.model || typeof (o.model as { invoke?: unknown }).invoke !== "function") {
      throw new InvalidArgumentError("MemoryExtractor needs `model`: a LangChain chat model, e.g. new ChatOpenAI({ model: \"gpt-4o-mini\" })");
    }
    if (o.mode !== undefined && o.mode !== "facts" && o.mode !== "profile") {
      throw new InvalidArgumentError(`MemoryExtractor mode must be "facts" or "profile", got ${JSON.stringify(o.mode)}`);
    }
    const int = (name: string, v: number | undefined, dflt: number, min: number) => {
      if (v === undefined) return dflt;
      if (!Number.isInteger(v) || v < min) throw new InvalidArgumentError(`MemoryExtractor ${name} must be an integer ≥ ${min}, got ${v}`);
      return v;
    };
    const num = (name: string, v: number | undefined, dflt: number, min: number, max: number) => {
      if (v === undefined) return dflt;
      if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
        throw new InvalidArgumentError(`MemoryExtractor ${name} must be a number in [${min}, ${max}], got ${v}`);
      }
      return v;
    };
    checkString(o.instructions, "instructions", true);
    for (const name of ["enableUpdates", "enableDeletes", "structuredOutput", "keepHistory"] as const) checkBoolean(o[name], name);
    if (o.profileKey !== undefined && (typeof o.profileKey !== "string" || o.profileKey.length === 0)) {
      throw new InvalidArgumentError(`MemoryExtractor profileKey must be a non-empty string, got ${JSON.stringify(o.profileKey)}`);
    }
    this.model = o.model;
    this.instructions = o.instructions;
    this.mode = o.mode ?? "facts";
    this.enableUpdates = o.enableUpdates ?? true;
    this.enableDeletes = o.enableDeletes ?? false;
    this.structuredOutput = o.structuredOutput ?? supportsStructuredOutput(o.model);
    this.neighbours = int("neighbours", o.neighbours, 3, 1);
    this.threshold = num("duplicateThreshold", o.duplicateThreshold, 0.95, 0, 1);
    this.profileKey = o.profileKey ?? "profile";
    this.maxAttempts = int("maxAttempts", o.maxAttempts, 3, 1);
    this.retryDelayMs = num("retryDelaySeconds", o.retryDelaySeconds, 1, 0, 3600) * 1000;
    this.logger = o.logger ?? console;
    this.maxChangesPerRun = int("maxChangesPerRun", o.maxChangesPerRun, 3, 0);
    this.maxFactsPerRun = int("maxFactsPerRun", o.maxFactsPerRun, 20, 1);
    this.maxReplyChars = int("maxReplyChars", o.maxReplyChars, MAX_REPLY_CHARS, 1);
    this.keepHistory = o.keepHistory ?? true;
    if (o.onError !== undefined && o.onError !== "log" && o.onError !== "throw") {
      throw new InvalidArgumentError(`MemoryExtractor onError must be "log" or "throw", got ${JSON.stringify(o.onError)}`);
    }
    this.onError = o.onError ?? "log";
    this.scheduler = new DebouncedScheduler(extractionRunOptions({ attempts: this.maxAttempts, retryDelayMs: this.retryDelayMs, logger: this.logger }));
  }

  /** Extractions (background, or inline with `onError: "log"`) that failed after every retry (also logged); the newest 100. */
  get failures(): readonly ExtractionFailure[] {
    return this.scheduler.failures;
  }

  /**
   * Makes one model call over `messages` and returns the durable facts. In
   * profile mode, returns the fields found, as `"key: value"` lines. An
   * unusable reply yields `[]` and a logged warning.
   */
  async extract(messages: readonly ConversationMessage[]): Promise<string[]> {
    const transcript = renderTranscript(toPlainMessages(messages));
    if (!transcript) return [];
    if (this.mode === "profile") {
      const profile = await this.askProfile({}, transcript);
      return profile ? renderProfile(profile).split("\n").filter(Boolean) : [];
    }
    return (await this.askFacts(transcript)) ?? [];
  }

  /**
   * Extracts from the messages not read before on this thread (all of them
   * without `threadId`), consolidates with the memories in `namespace`, writes,
   * and advances the thread's cursor. Model errors are retried, then thrown.
   */
  save(store: BaseStore, messages: readonly ConversationMessage[], namespace: readonly string[], options: SaveOptions = {}): Promise<SaveResult> {
    return this.saveWith(underlyingStore(store), messages, namespace, options, this.maxAttempts);
  }

  /**
   * {@link save} as housekeeping inside a user's turn (what `writeMemory`
   * does with `debounceSeconds: 0`). Bad arguments throw at once. A failure
   * after the retries follows `onError`: with `"log"` (the default) it is
   * logged, recorded in {@link failures}, and `undefined` is returned, so the
   * turn succeeds and the messages are read again on the thread's next turn;
   * with `"throw"` it rejects.
   */
  async saveInline(store: BaseStore, messages: readonly ConversationMessage[], namespace: readonly string[], options: SaveOptions = {}): Promise<SaveResult | undefined> {
    store = underlyingStore(store);
    validateSaveArgs(store, messages, namespace, options);
    try {
      // Through save(), so that a subclass overriding it sees inline extractions too.
      return await this.save(store, messages, namespace, options);
    } catch (error) {
      if (this.onError === "throw") throw error;
      const what = `the extraction for ${JSON.stringify(namespace)} thread ${JSON.stringify(options.threadId ?? null)}`;
      const attempts = isRetryable(error) ? this.maxAttempts : 1;
      this.scheduler.recordFailure(what, error, attempts);
      if (isStoreClosed(error)) this.logger.error(storeClosedMessage(what));
      else
        this.logger.error(
          `memory extractor: ${what} failed after ${plural(attempts, "attempt")}; the turn goes on, and its messages stay unread and will be read on the thread's next turn ` +
            '(set onError: "throw" to fail the turn instead)',
          error,
        );
      return undefined;
    }
  }

  private async saveWith(
    store: BaseStore,
    messages: readonly ConversationMessage[],
    namespace: readonly string[],
    options: SaveOptions,
    attempts: number,
  ): Promise<SaveResult> {
    validateSaveArgs(store, messages, namespace, options);
    const plain = toPlainMessages(messages);
    const { threadId } = options;
    const from = threadId ? unreadFrom(await readCursor(store, namespace, threadId), plain) : 0;
    const transcript = renderTranscript(plain.slice(from));
    const result: SaveResult = { added: [], updated: [], deleted: [] };
    if (transcript) {
      const ops =
        this.mode === "profile"
          ? await this.retry(attempts, () => this.planProfile(store, namespace, transcript))
          : await this.retry(attempts, () => this.planFacts(store, namespace, transcript));
      // An unusable reply (already warned about) leaves the cursor where it
      // was, so that the next run reads these messages again.
      if (ops === undefined) return result;
      const bounded = capChanges(ops, this.maxChangesPerRun, this.logger);
      await applyWrites(store, namespace, bounded, { ttl: options.ttl, threadId: options.threadId, keepHistory: this.keepHistory }, result);
    }
    if (threadId) await writeCursor(store, namespace, threadId, plain);
    return result;
  }

  /**
   * Schedules {@link save} to run after `delaySeconds` with no newer call for
   * the same store, namespace and thread. Resolves when it has run (with
   * `undefined` if it failed after retries, which is logged). Never rejects.
   */
  saveInBackground(
    store: BaseStore,
    messages: readonly ConversationMessage[],
    namespace: readonly string[],
    options: SaveOptions & {
      /** Quiet period before extracting. */
      delaySeconds: number;
      /** Called with the job's promise when it starts (after the quiet period), e.g. to register it as a pending write. */
      onStart?: (work: Promise<unknown>) => void;
      /** Called when the job is queued, with a function that starts it at once instead of after the quiet period. */
      onQueued?: (startNow: () => void) => void;
    },
  ): Promise<SaveResult | undefined> {
    store = underlyingStore(store);
    validateSaveArgs(store, messages, namespace, options);
    let id = this.storeIds.get(store);
    if (id === undefined) this.storeIds.set(store, (id = nextStoreId++));
    const key = `store#${id} ${JSON.stringify(namespace)} thread ${JSON.stringify(options.threadId ?? null)}`;
    const snapshot = [...messages];
    const { delaySeconds, onStart, onQueued, ...saveOptions } = options;
    if (typeof delaySeconds !== "number" || !Number.isFinite(delaySeconds) || delaySeconds < 0) {
      throw new InvalidArgumentError(`delaySeconds must be a number ≥ 0, got ${delaySeconds}`);
    }
    // Retries happen in the scheduler; a single attempt here avoids retrying twice.
    const done = this.scheduler.schedule(key, delaySeconds * 1000, () => this.saveWith(store, snapshot, namespace, saveOptions, 1), onStart);
    onQueued?.(() => this.scheduler.startNow(key));
    return done;
  }

  /** Runs every debounced extraction now and resolves when all pending work has settled. */
  flush(): Promise<void> {
    return this.scheduler.flush();
  }

  /** Number of background extractions waiting or running. */
  get pending(): number {
    return this.scheduler.size;
  }

  private retry<T>(attempts: number, work: () => Promise<T>): Promise<T> {
    return withRetry(work, attempts, this.retryDelayMs, (error, attempt) =>
      this.logger.warn(`memory extractor: model call failed (attempt ${attempt} of ${attempts}), retrying`, error),
    );
  }

  private async askFacts(transcript: string): Promise<string[] | undefined> {
    const facts = await callModel<string[]>({
      model: this.model,
      prompt: { system: this.instructions ?? DEFAULT_EXTRACTION_PROMPT, user: `Conversation:\n${transcript}` },
      formatHint: FACTS_FORMAT_PROMPT,
      structured: this.structuredOutput,
      schema: FactsSchema,
      fromStructured: (v) => {
        const list = asList(v);
        return list ? list.map(itemText).filter((t): t is string => t !== undefined) : undefined;
      },
      fromText: (reply) => parseFacts(reply, this.maxReplyChars),
      maxReplyChars: this.maxReplyChars,
      logger: this.logger,
      what: "facts",
    });
    if (facts === undefined) return undefined;
    const { facts: clean, dropped } = cleanFacts(facts, normaliseFact);
    if (dropped.length > 0) this.logger.warn(`memory extractor: dropped ${dropped.length} fact(s) that look like secrets or are too long`);
    if (clean.length > this.maxFactsPerRun) {
      this.logger.warn(`memory extractor: the model returned ${clean.length} facts; kept the first ${this.maxFactsPerRun} (maxFactsPerRun)`);
      return clean.slice(0, this.maxFactsPerRun);
    }
    return clean;
  }

  private async askProfile(current: Profile, transcript: string): Promise<Profile | undefined> {
    const profile = await callModel<Profile>({
      model: this.model,
      prompt: profilePrompt(this.instructions, current, transcript),
      formatHint: PROFILE_FORMAT_PROMPT,
      structured: this.structuredOutput,
      schema: ProfileSchema,
      fromStructured: readProfile,
      fromText: (reply) => parseProfileReply(reply, this.maxReplyChars),
      maxReplyChars: this.maxReplyChars,
      logger: this.logger,
      what: "profile",
    });
    if (!profile) return undefined;
    const safe: Profile = {};
    for (const [k, v] of Object.entries(profile)) {
      if (v !== null && looksSecret(renderProfile({ [k]: v }))) {
        this.logger.warn(`memory extractor: dropped profile field ${JSON.stringify(k)}: it looks like a secret`);
        continue;
      }
      safe[k] = v;
    }
    return safe;
  }

  /** Writes to make, or undefined when the model's reply was unusable. */
  private async planFacts(store: BaseStore, namespace: readonly string[], transcript: string): Promise<WriteOp[] | undefined> {
    const facts = await this.askFacts(transcript);
    if (facts === undefined) return undefined;
    if (facts.length === 0) return [];
    const neighbours = await findNeighbours(store, namespace, facts, this.neighbours, new Set([this.profileKey]));
    const consolidate = (this.enableUpdates || this.enableDeletes) && neighbours.length > 0;
    if (consolidate) {
      const decisions = await callModel({
        model: this.model,
        prompt: consolidationPrompt(facts, neighbours, this),
        formatHint: "",
        structured: this.structuredOutput,
        schema: DecisionsSchema,
        fromStructured: (v) => readDecisions(v, facts.length),
        fromText: (reply) => parseDecisionsReply(reply, facts.length, this.maxReplyChars),
        maxReplyChars: this.maxReplyChars,
        logger: this.logger,
        what: "consolidation",
      });
      if (decisions) {
        const options = { enableUpdates: this.enableUpdates, enableDeletes: this.enableDeletes, threshold: this.threshold };
        return this.dropSecretOps(planFromDecisions(facts, neighbours, decisions, options));
      }
      // Unusable decisions (warned above): fall back to the duplicate rule.
    }
    return facts.map((fact, i) => duplicateRule(fact, i, neighbours, this.threshold));
  }

  private dropSecretOps(ops: WriteOp[]): WriteOp[] {
    return ops.filter((op) => {
      if (op.kind === "put" && (looksSecret(op.text) || op.text.length > 500)) {
        this.logger.warn("memory extractor: dropped a consolidated memory that looks like a secret or is too long");
        return false;
      }
      return true;
    });
  }

  /** Writes to make, or undefined when the model's reply was unusable. */
  private async planProfile(store: BaseStore, namespace: readonly string[], transcript: string): Promise<WriteOp[] | undefined> {
    const existing = await store.get([...namespace], this.profileKey);
    const current = (existing?.value as { profile?: unknown } | undefined)?.profile;
    const currentProfile: Profile = current && typeof current === "object" && !Array.isArray(current) ? (current as Profile) : {};
    const update = await this.askProfile(currentProfile, transcript);
    if (!update) return undefined;
    const merged = mergeProfile(currentProfile, update);
    if (JSON.stringify(merged) === JSON.stringify(currentProfile) && existing) return [];
    const previousText = existing ? String((existing.value as { text?: unknown }).text ?? "") : undefined;
    const previousKey = existing ? this.profileKey : undefined;
    return [{ kind: "put", key: this.profileKey, text: renderProfile(merged), profile: merged, previousKey, previousText }];
  }
}


/** Throws InvalidArgumentError, before anything is read or written, for unusable save arguments. */
function validateSaveArgs(store: BaseStore, messages: readonly ConversationMessage[], namespace: readonly string[], options: SaveOptions): void {
  if (!store || typeof (store as { batch?: unknown }).batch !== "function") {
    throw new InvalidArgumentError("MemoryExtractor.save needs a LangGraph BaseStore as its first argument");
  }
  if (!Array.isArray(messages)) throw new InvalidArgumentError(`MemoryExtractor.save needs an array of messages, got ${typeof messages}`);
  if (!Array.isArray(namespace) || namespace.length === 0 || namespace.some((l) => typeof l !== "string" || l.length === 0)) {
    throw new InvalidArgumentError(`MemoryExtractor.save needs a non-empty namespace of labels, got ${JSON.stringify(namespace)}`);
  }
  if (options.ttl !== undefined && (typeof options.ttl !== "number" || !(options.ttl > 0) || options.ttl > MAX_TTL_MINUTES)) {
    throw new InvalidArgumentError(`ttl must be a positive number of minutes, got ${options.ttl}`);
  }
}

let nextStoreId = 1;

/** The stable key an extracted fact is stored under. */
export { factKey };
