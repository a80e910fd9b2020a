import { tool, type StructuredToolInterface, type ToolRunnableConfig } from "@langchain/core/tools";
import { checkKnownKeys } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { InvalidArgumentError } from "../errors.js";
import { checkTemplate } from "../scope/check-template.js";
import { templateFromLayout } from "../scope/layout-templates.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { resolveNamespace, type NamespaceTemplate } from "../scope/namespace-template.js";
import { waitForPendingWrites } from "../scope/pending-writes.js";
import { resolveStore } from "../scope/resolve-store.js";
import { EPISODE_NAMESPACE } from "./episode.js";
import { formatEpisode } from "./format.js";
import { searchEpisodes } from "./search.js";

/** The name of the tool {@link createSearchConversationsTool} returns. */
export const SEARCH_CONVERSATIONS_TOOL_NAME = "search_conversations";

/** Options for {@link createSearchConversationsTool}. */
export interface SearchConversationsToolOptions {
  /**
   * The episode namespace template, e.g. `["episodes", "{user_id}"]`, filled from `config.configurable`.
   * @default the layout's episodes namespace, else ["episodes", "{user_id}"]
   */
  namespace?: NamespaceTemplate;
  /**
   * The memory layout the app declared: the episodes namespace is taken from it (a `namespace` that differs is refused).
   * @default undefined
   */
  layout?: MemoryLayout;
  /**
   * The store to search.
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default config.store
   */
  store?: BaseStore;
  /**
   * Most turns one call may return.
   * @default 20
   */
  maxLimit?: number;
  /**
   * Show the turn before and after each hit.
   * @default true
   */
  neighbours?: boolean;
}

/**
 * The postload `search_conversations` tool: searches the user's past
 * conversation turns (all threads) and returns each hit with its date, thread
 * and, by default, the turns around it.
 *
 * @example
 * ```ts
 * const tools = [createSearchConversationsTool({ namespace: EPISODE_NAMESPACE, store })];
 * ```
 */
export function createSearchConversationsTool(options: SearchConversationsToolOptions): StructuredToolInterface {
  checkKnownKeys(options, OPTION_KEYS.searchConversationsTool);
  if (options?.maxLimit === null) throw new InvalidArgumentError("maxLimit must be a positive integer, got null");
  const maxLimit = options?.maxLimit ?? 20;
  if (!Number.isInteger(maxLimit) || maxLimit < 1) throw new InvalidArgumentError(`maxLimit must be a positive integer, got ${String(options?.maxLimit)}`);
  const template = templateFromLayout("episodes", options.namespace, options.layout, "namespace", EPISODE_NAMESPACE) as NamespaceTemplate;
  checkTemplate(template);
  return tool(
    async ({ query, limit }, config: ToolRunnableConfig) => {
      const cfg = config as LangGraphRunnableConfig;
      const namespace = resolveNamespace(template, cfg);
      const store = resolveStore(options.store, cfg);
      await waitForPendingWrites(store, namespace);
      const hits = await searchEpisodes(store, namespace, { query, limit: Math.min(limit ?? 5, maxLimit), neighbours: options.neighbours ?? true });
      if (hits.length === 0) return `No past conversation turns found for "${query}".`;
      return [`Found ${hits.length} past turn${hits.length === 1 ? "" : "s"}:`, ...hits.map(formatEpisode)].join("\n");
    },
    {
      name: SEARCH_CONVERSATIONS_TOOL_NAME,
      description:
        "Search the user's earlier conversations (all past threads) for what was said, e.g. 'when did I start the new job' " +
        "or 'the Lisbon trip plans'. Returns the matching turns quoted, with their date and thread, and the turns around them.",
      schema: z.object({
        query: z.string().min(1).describe("What to look for, in plain words, e.g. 'trip to Lisbon'."),
        limit: z.number().int().min(1).max(maxLimit).optional().describe(`How many turns to return at most (1-${maxLimit}, default 5).`),
      }),
    },
  );
}
