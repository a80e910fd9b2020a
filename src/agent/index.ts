// Subpath entry `langgraph-hnsw-memory/agent`: memory for langchain's
// `createAgent`. Only this entry imports `langchain` (an optional peer).
export { memoryMiddleware, type MemoryMiddlewareOptions } from "./memory-middleware.js";
