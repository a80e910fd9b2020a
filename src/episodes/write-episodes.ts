import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, MissingConfigError } from "../errors.js";
import { checkTemplate } from "../scope/check-template.js";
import { resolveNamespace, threadIdOf, type NamespaceTemplate } from "../scope/namespace-template.js";
import { resolveStore } from "../scope/resolve-store.js";
import { templateFromLayout } from "../scope/layout-templates.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { recordEpisodes, type RecordEpisodesOptions } from "./record.js";
import { EPISODE_NAMESPACE } from "./episode.js";

/** Options for {@link writeEpisodes}. */
export interface WriteEpisodesOptions {
  /**
   * The episode namespace template, filled from `config.configurable`.
   * @default the layout's episodes namespace, else ["episodes", "{user_id}"]
   */
  namespace?: NamespaceTemplate;
  /**
   * Where a person's memory lives (see `defaultMemoryLayout`): turns go to
   * its `episodes` namespace, where every forget path looks. A different
   * `namespace` is refused with `InvalidOptionError`.
   * @default undefined (turns go to `namespace`)
   */
  layout?: MemoryLayout;
  /**
   * The store to write to.
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default config.store
   */
  store?: BaseStore;
  /** Speaker names for user and assistant turns. @default { user: "user", assistant: "assistant" } */
  speakers?: RecordEpisodesOptions["speakers"];
  /** Time to live of episodes, in minutes. @default undefined (no expiry) */
  ttl?: number;
}

/**
 * A graph node that appends the thread's new turns to the user's episode
 * namespace ({@link recordEpisodes}), keyed by `config.configurable.thread_id`.
 * It returns no state update. A run without `thread_id` (or without the
 * template's values) throws {@link MissingConfigError} and writes nothing.
 *
 * @example
 * ```ts
 * graph.addNode("write_episodes", writeEpisodes({ store })).addEdge("call_model", "write_episodes");
 * ```
 */
export function writeEpisodes(options: WriteEpisodesOptions = {}): (state: { messages: BaseMessage[] }, config: LangGraphRunnableConfig) => Promise<Record<string, never>> {
  const template = templateFromLayout("episodes", options.namespace, options.layout, "namespace", EPISODE_NAMESPACE) as NamespaceTemplate;
  checkTemplate(template);
  if (options.ttl !== undefined && !(typeof options.ttl === "number" && options.ttl > 0)) {
    throw new InvalidArgumentError(`writeEpisodes ttl must be a positive number of minutes, got ${String(options.ttl)}`);
  }
  return async (state, config) => {
    const namespace = resolveNamespace(template, config);
    const threadId = threadIdOf(config);
    if (threadId === undefined) {
      throw new MissingConfigError("writeEpisodes needs config.configurable.thread_id to record a thread's turns");
    }
    const store = resolveStore(options.store, config);
    await recordEpisodes({ store, namespace, threadId, messages: state.messages ?? [], speakers: options.speakers, ttl: options.ttl });
    return {};
  };
}
