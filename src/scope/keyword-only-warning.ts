import type { BaseStore } from "@langchain/langgraph-checkpoint";

/** Whether the process already said that memory recalls by keywords only. */
let warned = false;

/**
 * Whether `store` can only rank a search by keywords, without the user
 * having said so: an `HNSWStore` or `PostgresMemoryStore` without `index`
 * (and without `retrieval: "keyword"`), or a store that follows LangGraph's
 * `InMemoryStore` and has no `indexConfig` (a LangGraph API server's own
 * store). Unknown stores (a `RemoteStore`: its server decides) are not.
 */
export function keywordOnly(store: BaseStore): boolean {
  const s = store as { keywordOnlyByDefault?: unknown; indexConfig?: unknown };
  if (typeof s.keywordOnlyByDefault === "boolean") return s.keywordOnlyByDefault;
  return "indexConfig" in s && !s.indexConfig;
}

function storeLabel(store: BaseStore): string {
  const name = (store as { constructor?: { name?: string } }).constructor?.name || "the store";
  const dir = (store as { path?: unknown }).path;
  return typeof dir === "string" ? `${name} at ${dir}` : name;
}

/**
 * Says once per process, at the first memory operation, that the store a
 * memory component uses has no vector index, so recall by meaning ("what
 * should I cook?" finding "vegetarian") cannot happen, and how to get it.
 */
export function warnIfKeywordOnly(store: BaseStore, logger: Pick<Console, "warn"> = console): void {
  if (warned || !keywordOnly(store)) return;
  warned = true;
  const own = typeof (store as { keywordOnlyByDefault?: unknown }).keywordOnlyByDefault === "boolean";
  const fix = own
    ? 'create it with `index: localMemoryIndex()` (the bundled offline embedder: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] }), or pass `retrieval: "keyword"` if keyword ranking is what you want'
    : "give the memory component a store with a vector index in its `store` option, e.g. new HNSWStore({ path, index: localMemoryIndex() })";
  logger.warn(
    `langgraph-hnsw-memory: memory on ${storeLabel(store)} recalls by KEYWORDS ONLY: the store has no vector index, ` +
      `so a question that shares no word with a memory finds nothing ("what should I cook?" does not find "vegetarian"). ` +
      `For recall by meaning, ${fix}. Logged once per process.`,
  );
}

/** Lets a test see the once-per-process warning again. */
export function resetKeywordOnlyWarning(): void {
  warned = false;
}
