// Migration between stores and through JSONL exports (re-exported from the package root).
export { migrateStore, exportStore, importStore, sameEmbedder, type MigrationOptions, type MigrationProgress, type MigrationReport } from "./migrate.js";
export { ContentChecksum, canonicalJson } from "./checksum.js";
export { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader } from "./jsonl.js";
export type { MemoryEntry, EmbedderInfo, MigratableStore } from "./entry.js";
