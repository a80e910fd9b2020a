import { checkNumber, checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { randomUUID } from "node:crypto";
import { tool, type StructuredToolInterface, type ToolRunnableConfig } from "@langchain/core/tools";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore, SearchItem } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { InvalidArgumentError } from "../errors.js";
import { checkTemplate } from "../scope/check-template.js";
import { memoryText } from "./format-memories.js";
import { resolveNamespace, threadIdOf, type NamespaceTemplate } from "../scope/namespace-template.js";
import { templateFromLayout } from "../scope/layout-templates.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { waitForPendingWrites } from "../scope/pending-writes.js";
import { resolveStore, underlyingStore } from "../scope/resolve-store.js";
import { runAsActor } from "../privacy/actor.js";
import { hasNearestInNamespace } from "../store/nearest.js";
import type { MemorySearchOptions } from "../store/memory-store-base.js";

/** The names of the tools {@link createMemoryTools} returns. */
export const MEMORY_TOOL_NAMES = ["search_memory", "list_memories", "remember", "forget"] as const;

/** Options for {@link createMemoryTools}. */
export interface MemoryToolsOptions {
  /**
   * Where the model's memories live, filled from `config.configurable` at run
   * time, e.g. `["users", "{user_id}"]`. Never taken from the model's arguments.
   * With `layout`, leave it out.
   * @default the layout's facts namespace (required without `layout`)
   */
  namespace?: NamespaceTemplate;
  /**
   * Where a person's memory lives (see `defaultMemoryLayout`): the tools
   * read and write its `facts` namespace, where every forget path looks. A
   * different `namespace` is refused with `InvalidOptionError`.
   * @default undefined (the tools use `namespace`)
   */
  layout?: MemoryLayout;
  /**
   * The store to use. Prefer passing it: the store LangGraph puts on
   * `config.store` drops `put`'s `index` argument.
   * Used even when the runtime injects another store (`compile({ store })`,
   * `createAgent({ store })`, a LangGraph API server's own); see resolveStore.
   * @default config.store
   */
  store?: BaseStore;
  /**
   * A read-only scope (app or agent knowledge your code seeds) that
   * `search_memory` also searches, e.g. `["app", "knowledge"]`. The model can
   * never write or delete here. May hold placeholders too.
   * @default undefined (no shared scope)
   */
  sharedNamespace?: NamespaceTemplate;
  /**
   * `remember` without a key updates an existing memory of the same
   * namespace instead of adding a new one when it is at least this similar
   * (cosine). Stores with `nearestInNamespace` (HNSWStore) compare the
   * vectors directly; others are searched and their scores taken. At least 0;
   * above 1 turns duplicate detection off.
   * @default 0.95
   */
  duplicateThreshold?: number;
  /**
   * Most results one `search_memory` or `list_memories` call may return.
   * @default 20
   */
  maxSearchLimit?: number;
  /**
   * Fields of the value to embed, passed as `put`'s `index` argument.
   * `false` leaves it to the store's own configuration.
   * @default ["text"]
   */
  indexFields?: string[] | false;
}

/** Most items `list_memories` reads to sort a user's memories by time. */
const LIST_SCAN_LIMIT = 5000;

/** Items read per search while listing (servers cap `limit`; 500 is under every cap here). */
const LIST_PAGE = 500;

const updatedTime = (item: SearchItem): number => new Date(item.updatedAt ?? 0).getTime();

/** Up to {@link LIST_SCAN_LIMIT} items under `namespace`, read in pages. */
async function scanAll(store: BaseStore, namespace: string[]): Promise<SearchItem[]> {
  const out: SearchItem[] = [];
  while (out.length < LIST_SCAN_LIMIT) {
    const page = await store.search(namespace, { limit: LIST_PAGE, offset: out.length });
    out.push(...page);
    if (page.length < LIST_PAGE) break;
  }
  return out;
}

/** A memory written by the tools. */
export interface ToolMemoryValue {
  text: string;
  source: "tool";
  [key: string]: unknown;
}

const KEY_PATTERN = /^[^\u0000-\u001f]{1,128}$/;

function sameNamespace(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((label, i) => label === b[i]);
}

/**
 * The memory of `namespace` (exactly) that a new `text` would duplicate: the
 * most similar one, if it scores at least `threshold`. A store that compares
 * by vector alone (HNSWStore) does it without a ranked search; any other
 * store is searched, and its scores are taken as they come.
 */
async function findTwin(store: BaseStore, namespace: string[], text: string, threshold: number): Promise<{ key: string } | undefined> {
  if (hasNearestInNamespace(store)) {
    const nearest = await store.nearestInNamespace(namespace, text);
    if (nearest !== undefined) return nearest && nearest.score >= threshold ? nearest : undefined;
  }
  const search: MemorySearchOptions = { query: text, limit: 3, queryAdapter: false }; // the text itself: plain cosines
  const hits = await underlyingStore(store).search(namespace, search);
  return hits.find((h) => sameNamespace(h.namespace, namespace) && typeof h.score === "number" && h.score >= threshold);
}

function formatHit(hit: SearchItem, shared: boolean): string {
  const score = typeof hit.score === "number" ? ` (score ${hit.score.toFixed(2)})` : "";
  return `- ${shared ? "[shared, read-only] " : ""}[${hit.key}] ${memoryText(hit)}${score}`;
}

/**
 * Creates the postload memory tools: `search_memory`, `list_memories`,
 * `remember` and `forget`.
 * Each resolves its namespace from the run's config, so one set of tools
 * serves every user. A missing config value throws {@link MissingConfigError}
 * (use {@link MemoryToolNode} so that it is not turned into a tool message).
 *
 * @example
 * ```ts
 * const tools = createMemoryTools({ namespace: ["users", "{user_id}"], store });
 * const model = chatModel.bindTools(tools);
 * ```
 */
export function createMemoryTools(options: MemoryToolsOptions): StructuredToolInterface[] {
  // A floor below 0 would take every search hit as a duplicate (a new memory would overwrite an old one);
  // one above 1 turns duplicate detection off.
  checkOptions(options, "createMemoryTools options", OPTION_KEYS.memoryTools, { optional: false });
  checkNumber(options.duplicateThreshold, "duplicateThreshold", { min: 0 });
  checkNumber(options.maxSearchLimit, "maxSearchLimit", { min: 1, integer: true });
  const duplicateThreshold = options.duplicateThreshold ?? 0.95;
  const maxSearchLimit = options.maxSearchLimit ?? 20;
  if (!Number.isFinite(duplicateThreshold)) {
    throw new InvalidArgumentError(`duplicateThreshold must be a finite number, got ${String(options.duplicateThreshold)}`);
  }
  if (!Number.isInteger(maxSearchLimit) || maxSearchLimit < 1) {
    throw new InvalidArgumentError(`maxSearchLimit must be a positive integer, got ${String(options.maxSearchLimit)}`);
  }
  /** The `limit` argument of search_memory and list_memories. */
  const limitField = (verb: string, byDefault: number) =>
    z.number().int().min(1).max(maxSearchLimit).optional().describe(`How many memories to ${verb} at most (1-${maxSearchLimit}, default ${byDefault}).`);
  const template = templateFromLayout("facts", options.namespace, options.layout, "namespace") as NamespaceTemplate;
  checkTemplate(template);
  if (options.sharedNamespace) checkTemplate(options.sharedNamespace);
  const index = options.indexFields === undefined ? ["text"] : options.indexFields;

  const scope = (config: ToolRunnableConfig) => {
    const cfg = config as LangGraphRunnableConfig;
    const namespace = resolveNamespace(template, cfg);
    const shared = options.sharedNamespace ? resolveNamespace(options.sharedNamespace, cfg) : undefined;
    return { namespace, shared, store: resolveStore(options.store, cfg) };
  };

  const searchMemory = tool(
    async ({ query, limit }, config) => {
      const { namespace, shared, store } = scope(config);
      const n = Math.min(limit ?? 5, maxSearchLimit);
      await waitForPendingWrites(store, namespace, { thread: threadIdOf(config) });
      const own = await store.search(namespace, { query, limit: n });
      const common = shared ? await store.search(shared, { query, limit: n }) : [];
      const all = [...own.map((h) => ({ h, shared: false })), ...common.map((h) => ({ h, shared: true }))]
        .sort((a, b) => (b.h.score ?? -Infinity) - (a.h.score ?? -Infinity))
        .slice(0, n);
      if (all.length === 0) return `No memories found for "${query}".`;
      return [`Found ${all.length} memor${all.length === 1 ? "y" : "ies"}:`, ...all.map((x) => formatHit(x.h, x.shared))].join("\n");
    },
    {
      name: "search_memory",
      description:
        "Search long-term memory about the current user (facts and preferences from earlier conversations) " +
        "and the shared read-only knowledge. Returns matching memories with their keys.",
      schema: z.object({
        query: z.string().min(1).describe("What to look for, in plain words, e.g. 'dietary restrictions'."),
        limit: limitField("return", 5),
      }),
    },
  );

  const listMemories = tool(
    async ({ limit, offset }, config) => {
      const { namespace, store } = scope(config);
      const n = Math.min(limit ?? maxSearchLimit, maxSearchLimit);
      const from = offset ?? 0;
      await waitForPendingWrites(store, namespace, { thread: threadIdOf(config) });
      const all = (await scanAll(store, namespace)).filter((i) => sameNamespace(i.namespace, namespace));
      all.sort((a, b) => updatedTime(b) - updatedTime(a));
      const page = all.slice(from, from + n);
      if (all.length === 0) return "No memories are stored about the current user.";
      if (page.length === 0) return `No memories at offset ${from}; there are ${all.length}.`;
      const day = (i: SearchItem) => (i.updatedAt ? ` (updated ${new Date(i.updatedAt).toISOString().slice(0, 10)})` : "");
      return [
        `Memories ${from + 1}-${from + page.length} of ${all.length}, newest first:`,
        ...page.map((i) => `- [${i.key}] ${memoryText(i)}${day(i)}`),
      ].join("\n");
    },
    {
      name: "list_memories",
      description:
        "List what long-term memory holds about the current user, newest first, with keys. " +
        "Use it to see what you know before you update (remember with a key) or forget a memory.",
      schema: z.object({
        limit: limitField("show", maxSearchLimit),
        offset: z.number().int().min(0).optional().describe("How many of the newest memories to skip, for the next page (default 0)."),
      }),
    },
  );

  const remember = tool(
    async ({ content, key }, config) => {
      const { namespace, store } = scope(config);
      const text = content.trim();
      if (!text) throw new InvalidArgumentError("content is empty; pass the fact to remember as a short sentence.");
      const value: ToolMemoryValue = { text, source: "tool" };
      if (key !== undefined) {
        if (!KEY_PATTERN.test(key)) {
          throw new InvalidArgumentError(`key ${JSON.stringify(key)} is not valid; use 1-128 printable characters, or omit the key.`);
        }
        const existing = await store.get(namespace, key);
        await store.put(namespace, key, value, index);
        return existing ? `Updated memory [${key}].` : `Saved memory [${key}].`;
      }
      await waitForPendingWrites(store, namespace, { thread: threadIdOf(config) });
      const twin = await findTwin(store, namespace, text, duplicateThreshold);
      if (twin) {
        await store.put(namespace, twin.key, value, index);
        return `Updated memory [${twin.key}] (it already held nearly the same fact).`;
      }
      const newKey = randomUUID();
      await store.put(namespace, newKey, value, index);
      return `Saved memory [${newKey}].`;
    },
    {
      name: "remember",
      description:
        "Save a durable fact about the current user (a preference, a constraint, a detail they shared) to long-term memory. " +
        "Pass a key to overwrite that memory; omit it to add a new one (near-duplicates update the existing memory).",
      schema: z.object({
        content: z.string().min(1).describe("The fact to remember, as one short self-contained sentence, e.g. 'User is vegetarian.'"),
        key: z
          .string()
          .optional()
          .describe("Key of an existing memory to overwrite (from search_memory results). Omit to add a new memory."),
      }),
    },
  );

  const forget = tool(
    async ({ key }, config) => {
      const { namespace, shared, store } = scope(config);
      const existing = await store.get(namespace, key);
      if (!existing) {
        if (shared && (await store.get(shared, key))) {
          throw new InvalidArgumentError(`memory [${key}] is shared knowledge and read-only; you cannot forget it.`);
        }
        throw new InvalidArgumentError(`no memory with key ${key}; call list_memories or search_memory to find keys.`);
      }
      await runAsActor({ source: "tool" }, () => store.delete(namespace, key));
      return `Forgot memory [${key}]: ${memoryText(existing)}`;
    },
    {
      name: "forget",
      description: "Delete one memory about the current user by its key (find keys with list_memories or search_memory).",
      schema: z.object({
        key: z.string().min(1).describe("The key of the memory to delete, as shown in search_memory results."),
      }),
    },
  );

  return [searchMemory, listMemories, remember, forget] as StructuredToolInterface[];
}
