/**
 * The memory store both graphs use, chosen by environment variables (see
 * `memoryStoreFromEnv`): `LANGGRAPH_MEMORY_PATH` (an HNSWStore in the
 * server's process: development, one container with one worker),
 * `LANGGRAPH_MEMORY_URL` (the package's memory server, through RemoteStore:
 * several workers, LangGraph Platform) or `DATABASE_URL` (PostgreSQL +
 * pgvector).
 *
 * ONE module, so the server's process holds one store for both graphs (two
 * HNSWStores on one directory would fight over its lock).
 *
 * In your project: `import { memoryStoreFromEnv } from "langgraph-hnsw-memory"`.
 */
import { memoryStoreFromEnv } from "../../../src/index.js";

/** Long-term memory. Pass it as the `store` OPTION: the server replaces `compile({ store })` with its own. */
export const store = memoryStoreFromEnv();

/** One memory space per user the SERVER authenticated (src/auth.ts); a request body cannot choose it. */
export const NAMESPACE = ["users", "{langgraph_auth_user_id}"];
