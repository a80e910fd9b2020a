import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/**
 * One scripted turn: a reply text, a ready AIMessage (for tool calls), or a
 * function that builds the reply from the messages the model was given.
 */
export type ScriptedTurn = string | AIMessage | ((messages: BaseMessage[]) => string | AIMessage);

/**
 * TEST DOUBLE: a scripted fake chat model. There is no LLM on these machines,
 * so tests drive graphs with this: it returns the scripted turns in order and
 * records every input it received. It is never a real model.
 */
export class ScriptedChatModel extends BaseChatModel {
  /** The message lists the model received, call by call. */
  readonly calls: BaseMessage[][];
  /** Names of the tools bound with bindTools, at the last bind. */
  boundToolNames: string[] = [];
  private readonly script: ScriptedTurn[];
  private readonly fallback?: ScriptedTurn;

  constructor(options: { turns: ScriptedTurn[]; fallback?: ScriptedTurn } & BaseChatModelParams) {
    super(options);
    this.script = [...options.turns];
    this.fallback = options.fallback;
    this.calls = [];
  }

  _llmType(): string {
    return "scripted-fake";
  }

  /** Returns a model that shares this script and call log, with tools recorded. */
  bindTools(tools: unknown[]): this {
    this.boundToolNames = tools.map((t) => {
      const o = t as { name?: string; function?: { name?: string } };
      return o.name ?? o.function?.name ?? "?";
    });
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push([...messages]);
    const turn = this.script.length > 0 ? this.script.shift()! : this.fallback;
    if (turn === undefined) throw new Error(`ScriptedChatModel: script exhausted after ${this.calls.length - 1} calls`);
    const out = typeof turn === "function" ? turn(messages) : turn;
    const message = typeof out === "string" ? new AIMessage(out) : out;
    const text = typeof message.content === "string" ? message.content : "";
    return { generations: [{ text, message }] };
  }
}
