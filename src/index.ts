// The package's only barrel: the public API.
export * from "./errors.js";

// Store
export { HNSWStore } from "./store/hnsw/hnsw-store.js";
export type { DeleteNamespaceOptions, HNSWStoreOptions, HnswOptions, HNSWPutOperation, HNSWGetOperation, HNSWSearchOperation, StoreStats } from "./store/hnsw/options.js";
export type { TTLConfig } from "./store/ttl.js";
export { MAX_VALUE_DEPTH } from "./store/validate-value.js";
export type { RetrievalMode } from "./store/retrieval-mode.js";
export type { ReindexOptions } from "./store/hnsw/reindex.js";
export { hasNearestInNamespace, type NearestInNamespace, type NearestItem } from "./store/nearest.js";
export { supportsConditionalPuts, type PutCondition } from "./store/conditional-put.js";

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
export { localMemoryIndex, MEMORY_TEXT_FIELDS } from "./embeddings/local-index.js";
export { CachedEmbeddings, type CachedEmbeddingsOptions, type CacheStats } from "./embeddings/cached-embeddings.js";
export { embedderIdentity, type IdentifiedEmbeddings } from "./embeddings/identity.js";
export {
  resolveEmbeddings,
  toEmbeddings,
  type EmbeddingsLike,
  type EmbeddingsFunc,
  type EmbeddingsInterfaceLike,
  type ResolveEmbeddingsOptions,
} from "./embeddings/resolve-embeddings.js";
export type { StoreIndexConfig, IndexHnswConfig } from "./store/index-config.js";
export { KeywordIndex, type KeywordDocument, type KeywordHit, type KeywordIndexOptions, type KeywordSearchOptions } from "./embeddings/keyword-index.js";
export { hybridRank, keywordSignals, type RankedHit, type HybridRankOptions } from "./embeddings/fusion.js";
export { tokenize } from "./embeddings/tokenize.js";

// Nodes, tools and the graph wiring
export { encodeLabel, decodeLabel, resolveNamespace, templateKeys, type NamespaceTemplate } from "./scope/namespace-template.js";
export { resolveStore, underlyingStore } from "./scope/resolve-store.js";
export { waitForPendingWrites } from "./scope/pending-writes.js";
export { runValue, AUTH_USER_PLACEHOLDER, type RunValueSource } from "./scope/run-values.js";
export { memoryNamespace, type NamespaceValues } from "./scope/memory-namespace.js";
export { forgetUser, type ForgetUserOptions, type ForgetUserResult } from "./scope/forget-user.js";
export {
  defaultMemoryLayout,
  defineMemoryLayout,
  layoutKind,
  type DefaultLayoutOptions,
  type MemoryKind,
  type MemoryKindView,
  type MemoryLayout,
  type MemoryLayoutOptions,
} from "./scope/memory-layout.js";
export { classifyNamespace, type NamespaceRole } from "./scope/layout-match.js";
export { forgetPerson, personNamespaces, type ForgetPersonOptions, type KindErasure, type PersonErasure, type PersonNamespace } from "./scope/forget-person.js";
export { recallMemoryContext, type RecallMemoryContextOptions, type RecalledMemoryContext } from "./graph/recall-context.js";
export type { RecallOptions } from "./graph/recall.js";
export { callModel, type CallModelOptions, type MemoryMode, type MessagesState } from "./graph/call-model.js";
export { createMemoryTools, MEMORY_TOOL_NAMES, type MemoryToolsOptions, type ToolMemoryValue } from "./graph/tools.js";
export { MemoryToolNode, type MemoryToolNodeOptions } from "./graph/memory-tool-node.js";
export { MEMORY_CONTEXT_HEADER, formatMemoryContext, isMemoryContextMessage } from "./graph/format-memories.js";
export { writeMemory, type WriteMemoryOptions } from "./graph/write-memory.js";
export { withMemory, MEMORY_NODES, type WithMemoryOptions } from "./graph/with-memory.js";

// Episodic memory: past conversation turns
export {
  EPISODE_NAMESPACE,
  EPISODE_CURSOR_ROOT,
  EPISODE_INDEX_FIELDS,
  episodeKey,
  type Episode,
  type EpisodeValue,
} from "./episodes/episode.js";
export { recordEpisodes, type RecordEpisodesOptions } from "./episodes/record.js";
export { writeEpisodes, type WriteEpisodesOptions } from "./episodes/write-episodes.js";
export { searchEpisodes, addNeighbours, type SearchEpisodesOptions } from "./episodes/search.js";
export { rerankEpisodes, isWhenQuestion, mentionsTime, type EpisodeRankOptions } from "./episodes/rank.js";
export { formatEpisode, EPISODES_SECTION_HEADER } from "./episodes/format.js";
export { createSearchConversationsTool, SEARCH_CONVERSATIONS_TOOL_NAME, type SearchConversationsToolOptions } from "./episodes/tool.js";
export { forgetEpisodes } from "./episodes/forget.js";
export { episodeTools, preloadEpisodeSection, type EpisodeMemoryOptions } from "./episodes/options.js";

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
export { CURSOR_NAMESPACE_ROOT, HIDDEN_NAMESPACE_ROOTS } from "./store/hidden-namespaces.js";
export { MAX_REPLY_CHARS } from "./extract/parse.js";
export { factKey } from "./extract/messages.js";
export type { ExtractorLogger } from "./extract/model-call.js";
export type { ExtractionFailure } from "./extract/scheduler.js";
export type { MemoryLogger, BackgroundFailure } from "./scope/background-runs.js";

// Privacy: redaction, audit trail, history, retention
export { createRedactor, luhnValid, ibanValid, DEFAULT_DETECTORS, type Redactor, type RedactorOptions, type DetectorName } from "./privacy/redact.js";
export { runAsActor, currentActor, type MemoryActor } from "./privacy/actor.js";
export { AuditLog, type AuditLogOptions, type AuditEntry, type AuditVerifyReport, type AuditRecord } from "./privacy/audit-log.js";
export { ProtectedStore, type ProtectedStoreOptions } from "./privacy/protected-store.js";
export { HISTORY_NAMESPACE_ROOT, historyNamespace, listHistory, restoreVersion, type MemoryVersion } from "./privacy/history.js";
export { cleanup, runRetention, scheduleRetention, type CleanupOptions, type CleanupReport, type RetentionRule, type RetentionScheduleOptions } from "./privacy/retention.js";
export { erasePerson, type ErasePersonOptions, type ErasureReport } from "./privacy/erase-person.js";
export type { EncryptionOptions, EncryptionKey } from "./store/hnsw/cipher.js";
export { EncryptedSerializer, type EncryptedSerializerOptions } from "./privacy/encrypted-serializer.js";
// Client of a memory server (also at the subpath `langgraph-hnsw-memory/remote`; the server itself is `langgraph-hnsw-memory/server`)
export { RemoteStore, type RemoteStoreOptions } from "./store/remote/remote-store.js";

// LangGraph API server (`langgraph dev`, Platform): the store chosen by environment variables
export { memoryStoreFromEnv, memoryStoreKindFromEnv, MEMORY_STORE_ENV, type MemoryStoreFromEnvOptions, type MemoryStoreKind } from "./scope/memory-store-from-env.js";
export { LazyStore } from "./scope/lazy-store.js";
export type { StoreReplacedLogger } from "./scope/resolve-store.js";

// Procedural memory: learned instructions, feedback, the prompt optimizer
export { PROCEDURES_ROOT, PROCEDURE_FEEDBACK_ROOT, procedureNamespace } from "./scope/procedure-namespace.js";
export { DEFAULT_PROCEDURE_NAME, type ProcedureRecord, type ProcedureScope, type ProcedureSource } from "./procedures/types.js";
export { getProcedure, setProcedure, type ProcedureChange, type ProcedureChangeInput } from "./procedures/store.js";
export { procedureHistory, restoreProcedure, type RestoreProcedureOptions } from "./procedures/history.js";
export { applyReview, dismissReview, listReviews, type ApplyReviewOptions, type DismissReviewOptions, type PendingReview, type ReviewTarget } from "./procedures/review.js";
export { listProcedureAgents, listProcedureUsers, type ProcedureAgent } from "./procedures/list.js";
export { recordFeedback, recordConversation, listFeedback, type FeedbackInput, type FeedbackRecord, type FeedbackStatus, type ListFeedbackOptions, type ReviewedProposal } from "./procedures/feedback.js";
export { lineDiff, type LineDiff, type DiffLine } from "./procedures/diff.js";
export { DEFAULT_PROCEDURE_LIMITS, UNSAFE_INSTRUCTION_PATTERNS, type ProcedureLimits } from "./procedures/limits.js";
export { METAPROMPT_PROMPT, PROPOSAL_FORMAT_PROMPT, GRADIENT_CRITIQUE_PROMPT, GRADIENT_EDIT_PROMPT, PROMPT_MEMORY_PROMPT, SMALLER_CHANGE_PROMPT, ATTRIBUTION_PROMPT } from "./procedures/prompts.js";
export { ProcedureOptimizer, type ProcedureOptimizerOptions, type ProcedureProposal, type ProcedureApprovalHook, type ProcedureReviewHook, type LearnTarget, type LearnResult, type ProposalRejection } from "./procedures/optimizer.js";
export { OPTIMIZER_DEFAULTS } from "./procedures/optimizer-options.js";
export { MultiPromptOptimizer, type MultiPromptOptimizerOptions, type MultiLearnTarget, type MultiLearnResult, type PromptSpec } from "./procedures/multi-prompt.js";
export type { OptimizerStrategy, OptimizerPrompts } from "./procedures/strategies.js";
export type { OptimizerCost } from "./procedures/cost.js";
export type { Trajectory, PromptGuidance } from "./procedures/render.js";
export { LEARNED_INSTRUCTIONS_HEADER, LEARNED_INSTRUCTIONS_PREAMBLE, learnedInstructionsSection, type ProcedureOptions } from "./procedures/section.js";

// Episodic memory: resolved relative dates, re-ranking defaults
export { resolveRelativeDates, type ResolvedDate } from "./episodes/dates.js";
export { EPISODE_RANK_DEFAULTS } from "./episodes/rank.js";
