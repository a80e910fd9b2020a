import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { OptimizerBudgetError } from "../errors.js";
import { contentText } from "../scope/message-text.js";

/** What one optimizer run spent, counted like the extractor's cost report (`npm run bench:extract`). */
export interface OptimizerCost {
  /** Model calls made. */
  calls: number;
  /** Characters sent (system + user message), over all calls. */
  promptChars: number;
  /** Characters of the largest single prompt. */
  maxPromptChars: number;
  /** Characters the model returned, over all calls. */
  replyChars: number;
  /** Trajectories shown to the model. */
  trajectories: number;
  /** Trajectories left out to stay within `maxCharsPerRun` (the oldest first). */
  droppedTrajectories: number;
}

/** Counts calls and characters of one run and refuses a call past its budget. */
export class CostMeter {
  readonly cost: OptimizerCost = { calls: 0, promptChars: 0, maxPromptChars: 0, replyChars: 0, trajectories: 0, droppedTrajectories: 0 };

  constructor(
    private readonly model: BaseChatModel,
    readonly maxCalls: number,
    readonly maxChars: number,
  ) {}

  /** Whether a call of `promptChars` more characters stays within the budget. */
  canAfford(promptChars: number): boolean {
    return this.cost.calls + 1 <= this.maxCalls && this.cost.promptChars + promptChars <= this.maxChars;
  }

  /** One call: a system and a user message; returns the reply's text. Throws OptimizerBudgetError past the budget. */
  async call(system: string, user: string): Promise<string> {
    const size = system.length + user.length;
    if (!this.canAfford(size)) {
      throw new OptimizerBudgetError(
        `an optimizer call of ${size} characters would exceed the run's budget (${this.cost.calls}/${this.maxCalls} calls, ${this.cost.promptChars}/${this.maxChars} characters used)`,
      );
    }
    this.cost.calls++;
    this.cost.promptChars += size;
    this.cost.maxPromptChars = Math.max(this.cost.maxPromptChars, size);
    const reply = await this.model.invoke([new SystemMessage(system), new HumanMessage(user)]);
    const text = contentText(reply.content);
    this.cost.replyChars += text.length;
    return text;
  }
}
