import { MAX_TTL_MINUTES } from "../store/ttl.js";
import { checkKnownKeys } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import type { MemoryExtractor } from "../extract/extractor.js";
import { resolveNamespace, threadIdOf, type NamespaceTemplate } from "../scope/namespace-template.js";
import { forgetQueuedWrite, trackPendingWrite, trackQueuedWrite } from "../scope/pending-writes.js";
import { resolveStore } from "../scope/resolve-store.js";
import { templateFromLayout } from "../scope/layout-templates.js";
import type { MemoryLayout } from "../scope/memory-layout.js";

/** Options of {@link writeMemory}. */
export interface WriteMemoryOptions {
  /**
   * The extractor that reads the conversation and writes memories. Without
   * one the node saves nothing (it still checks the run's namespace).
   * @default undefined
   */
  extractor?: MemoryExtractor;
  /**
   * Where memories go, e.g. `["users", "{user_id}"]`, filled from
   * `config.configurable`. With `layout`, leave it out.
   * @default the layout's facts namespace (required without `layout`)
   */
  namespace?: NamespaceTemplate;
  /**
   * Where a person's memory lives (see `defaultMemoryLayout`): memories go to
   * its `facts` namespace, where every forget path looks. A different
   * `namespace` is refused with `InvalidOptionError`.
   * @default undefined (memories go to `namespace`)
   */
  layout?: MemoryLayout;
  /**
   * The store to write to (background extractions keep the store of their run).
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default config.store (the store the graph was compiled with)
   */
  store?: BaseStore;
  /**
   * Run extraction in the background once the thread has had no new message
   * for this many seconds; the node returns at once and the reply is not
   * delayed. `0` extracts inline, before the node returns; a failed inline
   * extraction does not fail the turn unless the extractor has
   * `onError: "throw"`.
   * @default 0
   */
  debounceSeconds?: number;
  /**
   * Time to live of written memories, in minutes, for stores that support
   * expiry on puts.
   * @default undefined (no expiry)
   */
  ttl?: number;
}

/**
 * A graph node that extracts durable memories from `state.messages` and
 * writes them to the store. It returns no state update.
 *
 * The namespace is resolved before anything else: a run without the needed
 * `config.configurable` value (e.g. `user_id`) throws `MissingConfigError` and
 * writes nothing. The thread id (`config.configurable.thread_id`) keys the
 * incremental cursor, so each run only sends the thread's new messages.
 *
 * In background mode (`debounceSeconds > 0`) the node returns at once; after
 * the quiet period the extraction runs and is registered as a pending write on
 * the namespace, so a recall on it waits for the write to land. Call
 * `extractor.flush()` before the process exits.
 *
 * @example
 * ```ts
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("agent", callModel)
 *   .addNode("write_memory", writeMemory({ extractor, namespace: ["users", "{user_id}"], debounceSeconds: 30 }))
 *   .addEdge(START, "agent").addEdge("agent", "write_memory").addEdge("write_memory", END)
 *   .compile({ checkpointer, store });
 * ```
 */
export function writeMemory(options: WriteMemoryOptions): (state: { messages: BaseMessage[] }, config: LangGraphRunnableConfig) => Promise<Record<string, never>> {
  checkKnownKeys(options, OPTION_KEYS.writeMemory);
  const { extractor, store, debounceSeconds = 0, ttl } = options ?? ({} as WriteMemoryOptions);
  const namespace = templateFromLayout("facts", options?.namespace, options?.layout, "namespace");
  if (extractor !== undefined && typeof (extractor as { save?: unknown })?.save !== "function") {
    throw new InvalidArgumentError("writeMemory's `extractor` must be a MemoryExtractor: new MemoryExtractor({ model })");
  }
  if (!Array.isArray(namespace) || namespace.length === 0) {
    throw new InvalidArgumentError(`writeMemory needs \`namespace\`, a non-empty array of labels such as ["users", "{user_id}"], got ${JSON.stringify(namespace)}`);
  }
  if (typeof debounceSeconds !== "number" || !Number.isFinite(debounceSeconds) || debounceSeconds < 0) {
    throw new InvalidArgumentError(`writeMemory debounceSeconds must be a number ≥ 0, got ${debounceSeconds}`);
  }
  if (ttl !== undefined && (typeof ttl !== "number" || !(ttl > 0) || ttl > MAX_TTL_MINUTES)) {
    throw new InvalidArgumentError(`writeMemory ttl must be a positive number of minutes, got ${ttl}`);
  }

  return async (state, config) => {
    const ns = resolveNamespace(namespace, config);
    if (!extractor) return {};
    // Unwrapped from LangGraph's per-run AsyncBatchedStore (see underlyingStore).
    const target = resolveStore(store, config);
    const messages = state?.messages;
    if (!Array.isArray(messages)) {
      throw new InvalidArgumentError("writeMemory expects graph state with a `messages` array (e.g. MessagesAnnotation)");
    }
    const threadId = threadIdOf(config);
    if (debounceSeconds === 0) {
      // Housekeeping: a failure is logged and kept in extractor.failures, and
      // the turn succeeds, unless the extractor was built with onError: "throw".
      await extractor.saveInline(target, messages, ns, { ttl, threadId });
    } else {
      // While queued, a recall from another thread starts it at once and
      // waits (see waitForPendingWrites); the same thread's next turn does not
      // wait out the debounce, which that turn restarts anyway.
      const queueId = `thread ${threadId ?? ""}`;
      void extractor.saveInBackground(target, messages, ns, {
        ttl,
        threadId,
        delaySeconds: debounceSeconds,
        onQueued: (startNow) => trackQueuedWrite(target, ns, queueId, { thread: threadId, startNow }),
        onStart: (work) => {
          forgetQueuedWrite(target, ns, queueId);
          trackPendingWrite(target, ns, work);
        },
      });
    }
    return {};
  };
}
