import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { MemoryKind, MemoryLayout } from "./memory-layout.js";
import { resolveNamespace, threadIdOf, type NamespaceTemplate } from "./namespace-template.js";
import { resolveStore } from "./resolve-store.js";

/**
 * One turn's memory scope, resolved once when the turn starts and handed to
 * every kind that reads in it: the store (the option's, else the runtime's,
 * unwrapped), each kind's namespace for this run's values, the thread.
 */
export interface TurnScope {
  store: BaseStore;
  config?: LangGraphRunnableConfig;
  /** The facts namespace. */
  facts: string[];
  /** The episodes namespace, when episodes are on. */
  episodes?: string[];
  /** The layout's kinds that preload (`recall`), with their namespace for this run. */
  recalled: { kind: MemoryKind; namespace: string[] }[];
  /** The run's thread id, if any. */
  thread?: string;
}

/** What {@link resolveTurnScope} resolves. */
export interface TurnScopeOptions {
  store?: BaseStore;
  config?: LangGraphRunnableConfig;
  facts: NamespaceTemplate;
  episodes?: NamespaceTemplate;
  layout?: MemoryLayout;
}

/**
 * Resolves the turn's scope: the store once, every namespace once.
 *
 * @throws {MissingConfigError} when a namespace's placeholder has no value in the run (nothing is read).
 */
export function resolveTurnScope(options: TurnScopeOptions): TurnScope {
  const { config } = options;
  const facts = resolveNamespace(options.facts, config);
  const episodes = options.episodes ? resolveNamespace(options.episodes, config) : undefined;
  const recalled = (options.layout?.kinds ?? [])
    .filter((k) => k.recall !== undefined && k.name !== "facts" && k.name !== "episodes")
    .map((kind) => ({ kind, namespace: resolveNamespace(kind.namespace, config) }));
  return { store: resolveStore(options.store, config), config, facts, episodes, recalled, thread: threadIdOf(config) };
}
