export * from "./errors.js";
export { encodeLabel, decodeLabel, resolveNamespace, templateKeys, type NamespaceTemplate } from "./nodes/namespace-template.js";
export { HNSWStore, type HNSWStoreOptions, type HnswOptions, type HNSWPutOperation, type StoreStats } from "./store/hnsw-store.js";
export type { TTLConfig } from "./store/ttl.js";
export type { RetrievalMode } from "./store/search.js";
export type { ReindexOptions } from "./store/reindex.js";
