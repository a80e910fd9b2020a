// The package's only barrel: the public API.
export * from "./errors.js";

// Store
export { HNSWStore } from "./store/hnsw/hnsw-store.js";
export type { HNSWStoreOptions, HnswOptions, HNSWPutOperation, StoreStats } from "./store/hnsw/options.js";
export type { TTLConfig } from "./store/ttl.js";
export type { RetrievalMode } from "./store/hnsw/search.js";
export type { ReindexOptions } from "./store/hnsw/reindex.js";

// Migration between stores (HNSWStore ⇄ PostgresMemoryStore) and JSONL exports
export {
  migrateStore,
  exportStore,
  importStore,
  type MigrationOptions,
  type MigrationProgress,
  type MigrationReport,
  type MemoryEntry,
  type EmbedderInfo,
  type MigratableStore,
} from "./migrate/index.js";

// Embeddings and ranking
export { UniversalSentenceEncoderEmbeddings, type UniversalSentenceEncoderEmbeddingsOptions } from "./embeddings/universal-sentence-encoder.js";
export { CachedEmbeddings, type CachedEmbeddingsOptions, type CacheStats } from "./embeddings/cached-embeddings.js";
export { embedderIdentity, type IdentifiedEmbeddings } from "./embeddings/identity.js";
export { KeywordIndex, type KeywordHit, type KeywordIndexOptions, type KeywordSearchOptions } from "./embeddings/keyword-index.js";
export { hybridRank, keywordSignals, type RankedHit, type HybridRankOptions } from "./embeddings/fusion.js";
export { tokenize } from "./embeddings/tokenize.js";

// Nodes, tools and the graph wiring
export { encodeLabel, decodeLabel, resolveNamespace, templateKeys, type NamespaceTemplate } from "./scope/namespace-template.js";
export { resolveStore, underlyingStore } from "./scope/resolve-store.js";
export { waitForPendingWrites } from "./scope/pending-writes.js";
export { callModel, type CallModelOptions, type MemoryMode, type MessagesState } from "./graph/call-model.js";
export { createMemoryTools, MEMORY_TOOL_NAMES, type MemoryToolsOptions, type ToolMemoryValue } from "./graph/tools.js";
export { MemoryToolNode, type MemoryToolNodeOptions } from "./graph/memory-tool-node.js";
export { MEMORY_CONTEXT_HEADER, formatMemoryContext, isMemoryContextMessage } from "./graph/format-memories.js";
export { writeMemory, type WriteMemoryOptions } from "./graph/write-memory.js";
export { withMemory, MEMORY_NODES, type WithMemoryOptions } from "./graph/with-memory.js";

// Extraction
export {
  MemoryExtractor,
  type MemoryExtractorOptions,
  type SaveResult,
  type SavedMemory,
  type SaveOptions,
  type ExtractedMemoryValue,
} from "./extract/extractor.js";
export { DEFAULT_EXTRACTION_PROMPT, FACTS_FORMAT_PROMPT, CONSOLIDATION_PROMPT, DEFAULT_PROFILE_PROMPT, PROFILE_FORMAT_PROMPT } from "./extract/prompts.js";
export { CURSOR_NAMESPACE_ROOT } from "./extract/cursor.js";
export { factKey } from "./extract/messages.js";
export type { ExtractorLogger } from "./extract/model-call.js";
export type { ExtractionFailure } from "./extract/scheduler.js";
