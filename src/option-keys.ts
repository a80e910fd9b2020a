import type { MemoryMiddlewareOptions } from "./agent/memory-middleware.js";
import type { CachedEmbeddingsOptions } from "./embeddings/cached-embeddings.js";
import type { KeywordIndexOptions } from "./embeddings/keyword-index.js";
import type { UniversalSentenceEncoderEmbeddingsOptions } from "./embeddings/universal-sentence-encoder.js";
import type { EpisodeMemoryOptions } from "./episodes/options.js";
import type { RecordEpisodesOptions } from "./episodes/record.js";
import type { SearchEpisodesOptions } from "./episodes/search.js";
import type { SearchConversationsToolOptions } from "./episodes/tool.js";
import type { MemoryExtractorOptions } from "./extract/options.js";
import type { CallModelOptions } from "./graph/call-model.js";
import type { RecallMemoryContextOptions } from "./graph/recall-context.js";
import type { MemoryToolsOptions } from "./graph/tools.js";
import type { WithMemoryOptions } from "./graph/with-memory.js";
import type { WriteMemoryOptions } from "./graph/write-memory.js";
import type { MigrationOptions } from "./migrate/migrate.js";
import { optionKeys } from "./option-checks.js";
import type { AuditLogOptions } from "./privacy/audit-log.js";
import type { EncryptedSerializerOptions } from "./privacy/encrypted-serializer.js";
import type { ProtectedStoreOptions } from "./privacy/protected-store.js";
import type { RedactorOptions } from "./privacy/redact.js";
import type { CleanupOptions, RetentionScheduleOptions } from "./privacy/retention.js";
import type { ProcedureLimits } from "./procedures/limits.js";
import type { ProcedureOptimizerOptions } from "./procedures/optimizer.js";
import type { ApplyReviewOptions, DismissReviewOptions } from "./procedures/review.js";
import type { ProcedureOptions } from "./procedures/section.js";
import type { MemoryStoreFromEnvOptions } from "./scope/memory-store-from-env.js";
import type { InspectorOptions } from "./server/inspector/plugin.js";
import type { MemoryServerOptions, StartMemoryServerOptions } from "./server/options.js";
import type { HnswOptions, HNSWStoreOptions } from "./store/hnsw/options.js";
import type { StoreIndexConfig } from "./store/index-config.js";
import type { PostgresMemoryStoreOptions } from "./store/postgres/options.js";
import type { PostgresHnswOptions } from "./store/postgres/settings.js";
import type { RemoteStoreOptions } from "./store/remote/remote-store.js";
import type { TTLConfig } from "./store/ttl.js";

/** The keys of MemoryServerOptions, which StartMemoryServerOptions extends. */
const MEMORY_SERVER_KEYS: Record<keyof MemoryServerOptions & string, true> = { layout: true, logger: true, store: true, apiKey: true, authenticate: true, allowUnauthenticated: true, usersLabel: true, bodyLimit: true, maxLimit: true, maxBatchOperations: true, requestTimeout: true, logValues: true, plugins: true, closeStore: true, allowedHosts: true, maxJsonDepth: true, maxResultsPerRequest: true, maxResponseBytes: true };

/**
 * The keys of every public options object, one list each, held by the
 * compiler to exactly the keys of its interface (see `optionKeys`). Every
 * constructor and factory refuses any other key with `UnknownOptionError`
 * (`checkKnownKeys`), suggesting the near miss: `hnsw.indexworkers` is
 * refused with "did you mean hnsw.indexWorkers?", never silently ignored.
 */
export const OPTION_KEYS = {
  hnswStore: optionKeys<HNSWStoreOptions>({ embedderIdentity: true, index: true, path: true, ttl: true, hnsw: true, encryption: true, retrieval: true, durability: true, compactAfterBytes: true, compactLogRatio: true, embeddingCache: true, withoutEmbedder: true, clock: true, logger: true }),
  hnsw: optionKeys<HnswOptions>({ efConstruction: true, M: true, efSearch: true, initialCapacity: true, exactScanThreshold: true }),
  ttl: optionKeys<TTLConfig>({ refreshOnRead: true, defaultTtl: true, sweepIntervalMinutes: true }),
  index: optionKeys<StoreIndexConfig>({ embeddings: true, embed: true, dims: true, hnsw: true, fields: true, queryAdapter: true }),
  postgresStore: optionKeys<PostgresMemoryStoreOptions>({ sessionSettings: true, embedderIdentity: true, index: true, ttl: true, hnsw: true, retrieval: true, clock: true, logger: true, pool: true, schema: true, maxRetries: true, connectionString: true, poolConfig: true, tablePrefix: true, preparedStatements: true, statementTimeoutMs: true, connectionRetryMs: true }),
  postgresHnsw: optionKeys<PostgresHnswOptions>({ m: true, efConstruction: true, efSearch: true, exactScanThreshold: true, deferredIndexing: true, indexWorkers: true, maxPendingVectors: true }),
  remoteStore: optionKeys<RemoteStoreOptions>({ url: true, apiKey: true, headers: true, timeoutMs: true, fetch: true }),
  memoryServer: optionKeys<MemoryServerOptions>(MEMORY_SERVER_KEYS),
  startMemoryServer: optionKeys<StartMemoryServerOptions>({ ...MEMORY_SERVER_KEYS, host: true, port: true, handleSignals: true }),
  /** Fastify's own register options (`prefix`, `logLevel`, `logSerializers`) are accepted beside these. */
  inspector: optionKeys<InspectorOptions>({ store: true, title: true, usersLabel: true, episodesLabel: true, layout: true, allowedHosts: true }),
  memoryStoreFromEnv: optionKeys<MemoryStoreFromEnvOptions>({ index: true, hnsw: true, postgres: true, remote: true, env: true }),
  protectedStore: optionKeys<ProtectedStoreOptions>({ history: true, redactor: true, audit: true, historyTtl: true }),
  redactor: optionKeys<RedactorOptions>({ detectors: true, patterns: true }),
  auditLog: optionKeys<AuditLogOptions>({ path: true, subjectDepth: true, sync: true, secret: true }),
  cleanup: optionKeys<CleanupOptions>({ namespace: true, now: true, maxAge: true, keepLast: true }),
  retentionSchedule: optionKeys<RetentionScheduleOptions>({ everyMinutes: true, onError: true, onRun: true }),
  encryptedSerializer: optionKeys<EncryptedSerializerOptions>({ key: true, readPlaintext: true, inner: true }),
  extractor: optionKeys<MemoryExtractorOptions>({ logger: true, model: true, neighbours: true, duplicateThreshold: true, mode: true, instructions: true, enableUpdates: true, enableDeletes: true, structuredOutput: true, keepHistory: true, maxAttempts: true, retryDelaySeconds: true, maxChangesPerRun: true, maxFactsPerRun: true, maxReplyChars: true, onError: true, profileKey: true }),
  callModel: optionKeys<CallModelOptions>({ layout: true, namespace: true, limit: true, model: true, tools: true, store: true, procedures: true, episodes: true, recentScanLimit: true, maxTokens: true, scoreThreshold: true, fillWithRecent: true, mode: true, systemPrompt: true, systemMessages: true, queryBuilder: true, memoryTools: true }),
  withMemory: optionKeys<WithMemoryOptions>({ layout: true, namespace: true, limit: true, model: true, tools: true, store: true, procedures: true, episodes: true, recentScanLimit: true, maxTokens: true, scoreThreshold: true, fillWithRecent: true, mode: true, systemPrompt: true, systemMessages: true, queryBuilder: true, handleToolErrors: true, memoryTools: true, extract: true }),
  memoryMiddleware: optionKeys<MemoryMiddlewareOptions>({ layout: true, namespace: true, limit: true, name: true, store: true, procedures: true, episodes: true, recentScanLimit: true, maxTokens: true, scoreThreshold: true, fillWithRecent: true, mode: true, queryBuilder: true, handleToolErrors: true, memoryTools: true, extract: true }),
  writeMemory: optionKeys<WriteMemoryOptions>({ layout: true, namespace: true, ttl: true, store: true, extractor: true, debounceSeconds: true }),
  memoryTools: optionKeys<MemoryToolsOptions>({ layout: true, namespace: true, store: true, duplicateThreshold: true, maxSearchLimit: true, sharedNamespace: true, indexFields: true }),
  recallMemoryContext: optionKeys<RecallMemoryContextOptions>({ layout: true, namespace: true, limit: true, config: true, query: true, store: true, recentScanLimit: true, maxTokens: true, scoreThreshold: true, fillWithRecent: true, withKeys: true }),
  procedures: optionKeys<ProcedureOptions>({ logger: true, name: true, store: true, agentId: true, maxTokens: true, userKey: true }),
  procedureOptimizer: optionKeys<ProcedureOptimizerOptions>({ applyUserFeedbackToEveryUserWithoutReview: true, retainUsedFeedbackDays: true, onReview: true, logger: true, model: true, maxAttempts: true, retryDelaySeconds: true, maxReplyChars: true, agentWide: true, maxCallsPerRun: true, maxCharsPerRun: true, maxFeedbackPerRun: true, strategy: true, limits: true, rejectUnsafe: true, prompts: true }),
  applyReview: optionKeys<ApplyReviewOptions>({ reason: true, force: true, limits: true }),
  dismissReview: optionKeys<DismissReviewOptions>({ reason: true }),
  procedureLimits: optionKeys<ProcedureLimits>({ maxRemovedLines: true, maxChars: true, maxChangedLines: true }),
  episodes: optionKeys<EpisodeMemoryOptions>({ namespace: true, tool: true, speakers: true, preloadLimit: true, record: true }),
  recordEpisodes: optionKeys<RecordEpisodesOptions>({ namespace: true, ttl: true, now: true, messages: true, store: true, threadId: true, speakers: true }),
  searchEpisodes: optionKeys<SearchEpisodesOptions>({ k: true, limit: true, query: true, vectorWeight: true, threadId: true, replyWeight: true, promptWeight: true, window: true, minWords: true, speakerBoost: true, sessionDecay: true, timeBoost: true, contextWeight: true, collapseRepeats: true, bridgeWeight: true, neighbours: true, pool: true, rerank: true }),
  searchConversationsTool: optionKeys<SearchConversationsToolOptions>({ layout: true, namespace: true, store: true, neighbours: true, maxLimit: true }),
  cachedEmbeddings: optionKeys<CachedEmbeddingsOptions>({ embeddings: true, maxEntries: true, symmetric: true, file: true, lineCipher: true }),
  keywordIndex: optionKeys<KeywordIndexOptions>({ k1: true, b: true, stemming: true }),
  universalSentenceEncoder: optionKeys<UniversalSentenceEncoderEmbeddingsOptions>({ batchSize: true, chunkChars: true, maxChunks: true, thread: true, maxConcurrency: true, maxRetries: true, onFailedAttempt: true }),
  migration: optionKeys<MigrationOptions>({ layout: true, verify: true, batchSize: true, onProgress: true }),
} as const;
