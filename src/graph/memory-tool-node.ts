import { ToolMessage, type ToolCall } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { isGraphBubbleUp, isGraphDrained, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { Command } from "@langchain/langgraph";
import { MemoryError, MissingConfigError, StoreClosedError, StoreLockedError, CorruptStoreError, IncompatibleStoreError } from "../errors.js";
import { resolveNamespace, type NamespaceTemplate } from "../scope/namespace-template.js";

/** Options for {@link MemoryToolNode}. */
export interface MemoryToolNodeOptions {
  /**
   * Namespace templates the tools use. They are resolved before any tool
   * runs, so a run without e.g. `user_id` fails before touching anything.
   * @default []
   */
  namespaces?: NamespaceTemplate[];
  /**
   * Turn other tool errors into error messages for the model (ToolNode's
   * default behaviour). Errors that mean the run is misconfigured
   * ({@link MissingConfigError}, store locked/closed/corrupt) are always rethrown.
   * @default true
   */
  handleToolErrors?: boolean;
  /** Node name. @default "tools" */
  name?: string;
}

/** Errors that must reach the caller, never the model. */
const FATAL = [MissingConfigError, StoreClosedError, StoreLockedError, CorruptStoreError, IncompatibleStoreError];

/** Whether an error means the run itself is wrong, so it must not become a tool message. */
export function isFatalMemoryError(e: unknown): boolean {
  if (e instanceof MemoryError) return FATAL.some((cls) => e instanceof cls);
  // A second copy of this package (dual install) has other classes: match by name.
  return e instanceof Error && FATAL.some((cls) => cls.name === e.name);
}

/**
 * A `ToolNode` that never swallows configuration errors. Stock `ToolNode`
 * turns every tool exception into a message for the model, so a run without
 * `user_id` would let the model carry on as if memory were empty. This node
 * resolves the memory namespaces first and rethrows {@link MissingConfigError}
 * (and store failures) from any tool; other errors still become messages.
 *
 * @example
 * ```ts
 * const node = new MemoryToolNode([...createMemoryTools({ namespace, store }), ...myTools], { namespaces: [namespace] });
 * ```
 */
export class MemoryToolNode extends ToolNode {
  private readonly namespaces: NamespaceTemplate[];
  private readonly modelReadsErrors: boolean;

  constructor(tools: StructuredToolInterface[], options: MemoryToolNodeOptions = {}) {
    super(tools, { name: options.name ?? "tools", handleToolErrors: false });
    this.namespaces = options.namespaces ?? [];
    this.modelReadsErrors = options.handleToolErrors ?? true;
  }

  protected override async runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown): Promise<ToolMessage | Command> {
    for (const template of this.namespaces) resolveNamespace(template, config);
    try {
      return await super.runTool(call, config, state);
    } catch (e) {
      if (!this.modelReadsErrors || isFatalMemoryError(e) || isGraphBubbleUp(e) || isGraphDrained(e)) throw e;
      const message = e instanceof Error ? e.message : String(e);
      return new ToolMessage({
        status: "error",
        content: `Error: ${message}\n Please fix your mistakes.`,
        name: call.name,
        tool_call_id: call.id ?? "",
      });
    }
  }
}
