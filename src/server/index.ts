// Subpath entry `langgraph-hnsw-memory/server`: the memory server (loads Fastify).
export { createMemoryServer } from "./create-server.js";
export { startMemoryServer, type RunningMemoryServer } from "./start-server.js";
export { scopeFor, type RequestScope } from "./scope.js";
export { isLoopback } from "./auth.js";
export type { MemoryServerOptions, StartMemoryServerOptions, AuthenticatedUser } from "./options.js";
export type { WireMemory } from "./memory-routes.js";
export type { WireItem, WireOperation, WireError } from "../store/remote/wire.js";
export { RemoteStore, type RemoteStoreOptions } from "../store/remote/remote-store.js";
export { inspectorPlugin, type InspectorOptions } from "./inspector/plugin.js";
// Route access rules (config.access) and the route table; the Host allowlist's defaults.
export type { RouteAccess, MemoryRoute } from "./access.js";
export { LOOPBACK_HOSTS } from "./host-guard.js";
