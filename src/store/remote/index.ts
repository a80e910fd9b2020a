// Subpath entry `langgraph-hnsw-memory/remote`: the client of a memory server (no Fastify).
export { RemoteStore, type RemoteStoreOptions } from "./remote-store.js";
