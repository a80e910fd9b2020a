// Subpath entry `langgraph-hnsw-memory/postgres`: the PostgreSQL store (needs the optional `pg` peer).
export { PostgresMemoryStore } from "./postgres-store.js";
export type { PostgresMemoryStoreOptions, PostgresHnswOptions, PostgresStoreStats } from "./options.js";
export { SCHEMA_VERSION } from "./schema.js";
