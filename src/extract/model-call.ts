import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { MemoryLogger } from "../scope/background-runs.js";
import { contentText } from "../scope/message-text.js";

/** Where the extractor reports what it could not use (the shared {@link MemoryLogger}). Defaults to `console`. */
export type ExtractorLogger = MemoryLogger;

/**
 * True when the model's class provides its own `withStructuredOutput` (as
 * ChatOpenAI, ChatAnthropic, ChatOllama… do), rather than only inheriting the
 * generic one from BaseChatModel.
 */
export function supportsStructuredOutput(model: BaseChatModel): boolean {
  return typeof model.withStructuredOutput === "function" && model.withStructuredOutput !== BaseChatModel.prototype.withStructuredOutput;
}

/** One model call: a system prompt and one human message. */
export interface PromptPair {
  system: string;
  user: string;
}

export function toMessages(prompt: PromptPair): BaseMessage[] {
  return [new SystemMessage(prompt.system), new HumanMessage(prompt.user)];
}

/**
 * Calls the model and returns a parsed value, or `undefined` (with a warning)
 * when the reply cannot be used. Network and model errors are thrown, so that
 * the caller can retry.
 *
 * With `structured`, the model is asked through `withStructuredOutput(schema)`
 * and its result is passed through `fromStructured`. Otherwise the plain-text
 * prompt (`formatHint` appended) is sent and the reply parsed with `fromText`.
 */
export async function callModel<T>(args: {
  model: BaseChatModel;
  prompt: PromptPair;
  formatHint: string;
  structured: boolean;
  schema: unknown;
  fromStructured: (value: unknown) => T | undefined;
  fromText: (reply: string) => T | undefined;
  logger: ExtractorLogger;
  what: string;
  /** Longer text replies are not parsed (warned about, nothing stored). */
  maxReplyChars?: number;
}): Promise<T | undefined> {
  const { model, prompt, logger, what } = args;
  if (args.structured) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const runnable = model.withStructuredOutput(args.schema as any);
    const value = await runnable.invoke(toMessages(prompt));
    const parsed = args.fromStructured(value);
    if (parsed === undefined) logger.warn(`memory extractor: the model's structured ${what} did not match the schema; nothing stored`, value);
    return parsed;
  }
  const reply = await model.invoke(toMessages({ system: `${prompt.system}\n\n${args.formatHint}`, user: prompt.user }));
  const text = contentText(reply.content);
  if (args.maxReplyChars !== undefined && text.length > args.maxReplyChars) {
    logger.warn(`memory extractor: the model's ${what} reply is ${text.length} characters, over maxReplyChars (${args.maxReplyChars}); nothing stored`);
    return undefined;
  }
  const parsed = args.fromText(text);
  if (parsed === undefined) {
    logger.warn(`memory extractor: could not parse the model's ${what} reply as JSON; nothing stored. Reply began: ${JSON.stringify(text.slice(0, 200))}`);
  }
  return parsed;
}
