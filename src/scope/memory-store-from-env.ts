import type { BaseStore, IndexConfig } from "@langchain/langgraph-checkpoint";
import { localMemoryIndex } from "../embeddings/local-index.js";
import { checkKnownKeys, checkObject, checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { MemoryStoreConfigError } from "../errors.js";
import { HNSWStore } from "../store/hnsw/hnsw-store.js";
import type { HNSWStoreOptions } from "../store/hnsw/options.js";
import type { PostgresStoreSettings } from "../store/postgres/settings.js";
import { RemoteStore, type RemoteStoreOptions } from "../store/remote/remote-store.js";
import { redactUrl, urlHasCredentials } from "../store/redact-url.js";
import { LazyStore } from "./lazy-store.js";

/** The environment variables {@link memoryStoreFromEnv} reads. */
export const MEMORY_STORE_ENV = {
  /** Base URL of the package's memory server (`createMemoryServer`): a {@link RemoteStore}. */
  url: "LANGGRAPH_MEMORY_URL",
  /** Optional: the memory server's API key, sent as `x-api-key`. */
  apiKey: "LANGGRAPH_MEMORY_API_KEY",
  /** A PostgreSQL connection string: a `PostgresMemoryStore`. */
  databaseUrl: "DATABASE_URL",
  /** A directory: an {@link HNSWStore} in this process. */
  path: "LANGGRAPH_MEMORY_PATH",
} as const;

/** Which store {@link memoryStoreFromEnv} chose. */
export type MemoryStoreKind = "remote" | "postgres" | "hnsw";

/** Options of {@link memoryStoreFromEnv}. */
export interface MemoryStoreFromEnvOptions {
  /**
   * Where the variables are read.
   * @default process.env
   */
  env?: Record<string, string | undefined>;
  /**
   * The vector index of an `HNSWStore` or `PostgresMemoryStore` (a
   * `RemoteStore` uses the memory server's own index and ignores this).
   * @default localMemoryIndex(): { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } (offline, local)
   */
  index?: IndexConfig;
  /**
   * More options of the `HNSWStore` (`LANGGRAPH_MEMORY_PATH`).
   * @default {}
   */
  hnsw?: Omit<HNSWStoreOptions, "path" | "index">;
  /**
   * More options of the `PostgresMemoryStore` (`DATABASE_URL`).
   * @default {}
   */
  postgres?: Omit<PostgresStoreSettings, "index">;
  /**
   * More options of the `RemoteStore` (`LANGGRAPH_MEMORY_URL`).
   * @default {}
   */
  remote?: Omit<RemoteStoreOptions, "url" | "apiKey">;
}

function present(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

/**
 * Which store the environment asks for, without building it: `remote`
 * (`LANGGRAPH_MEMORY_URL`), `postgres` (`DATABASE_URL`) or `hnsw`
 * (`LANGGRAPH_MEMORY_PATH`). Exactly one must be set (empty counts as unset);
 * otherwise `MemoryStoreConfigError`.
 */
export function memoryStoreKindFromEnv(env: Record<string, string | undefined> = process.env): MemoryStoreKind {
  const set: Array<[MemoryStoreKind, string]> = (
    [
      ["remote", MEMORY_STORE_ENV.url],
      ["postgres", MEMORY_STORE_ENV.databaseUrl],
      ["hnsw", MEMORY_STORE_ENV.path],
    ] as Array<[MemoryStoreKind, string]>
  ).filter(([, name]) => present(env, name) !== undefined);
  if (set.length === 1) return set[0][0];
  const all = `${MEMORY_STORE_ENV.url} (a memory server), ${MEMORY_STORE_ENV.databaseUrl} (PostgreSQL) or ${MEMORY_STORE_ENV.path} (a local directory)`;
  if (set.length === 0) throw new MemoryStoreConfigError(`memoryStoreFromEnv: no memory store configured; set exactly one of ${all}`);
  throw new MemoryStoreConfigError(
    `memoryStoreFromEnv: ${set.map(([, n]) => n).join(" and ")} are all set; set exactly one of ${all}, so that memory cannot silently go to the wrong place`,
  );
}

/**
 * The long-term memory store a `langgraph.json` project's graph modules use,
 * chosen by environment variables, so that the same module runs under
 * `langgraph dev`, in a container and in tests:
 *
 * - `LANGGRAPH_MEMORY_URL` (+ optional `LANGGRAPH_MEMORY_API_KEY`): a
 *   {@link RemoteStore} on the package's memory server — for several API
 *   workers or LangGraph Platform, where every worker must see one memory;
 * - `DATABASE_URL`: a `PostgresMemoryStore` (from `langgraph-hnsw-memory/postgres`,
 *   loaded by a dynamic import at the first operation, so projects without
 *   `pg` never load it);
 * - `LANGGRAPH_MEMORY_PATH`: an {@link HNSWStore} on that directory, in this
 *   process — for development and one container with one worker.
 *
 * Exactly one must be set, else `MemoryStoreConfigError` (at this call, before
 * anything is opened); so is a URL that is not `http(s)://` or a database URL
 * that is not `postgres(ql)://`, a `LANGGRAPH_MEMORY_URL` with a user name or
 * password (put the key in `LANGGRAPH_MEMORY_API_KEY`) and a path with a NUL
 * character. Errors show URLs without user, password or query. A relative `LANGGRAPH_MEMORY_PATH` is taken
 * from the process's working directory. Nothing is opened here: every store opens at its first
 * operation. Pass the result as the `store` OPTION of `withMemory`,
 * `memoryMiddleware`, `callModel`, … — not (only) to `compile({ store })`,
 * which a LangGraph API server overrides with its own index-less store.
 *
 * @example
 * ```ts
 * import { memoryStoreFromEnv, withMemory } from "langgraph-hnsw-memory";
 * const store = memoryStoreFromEnv(); // LANGGRAPH_MEMORY_PATH=./.memory under `langgraph dev`
 * export const graph = withMemory({ model, namespace: ["users", "{langgraph_auth_user_id}"], store }).compile();
 * ```
 */
function checkProtocol(name: string, value: string, allowed: string[]): void {
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    throw new MemoryStoreConfigError(`memoryStoreFromEnv: ${name} is not a valid URL: ${JSON.stringify(redactUrl(value))} (characters such as / @ : in a password must be percent-encoded)`);
  }
  if (!allowed.includes(protocol)) {
    throw new MemoryStoreConfigError(`memoryStoreFromEnv: ${name} must be a ${allowed.join(" or ")} URL, got ${JSON.stringify(protocol)}`);
  }
}

export function memoryStoreFromEnv(options: MemoryStoreFromEnvOptions = {}): BaseStore {
  checkOptions(options, "memoryStoreFromEnv options", OPTION_KEYS.memoryStoreFromEnv);
  checkObject(options.env, "env");
  checkObject(options.hnsw, "hnsw");
  checkObject(options.postgres, "postgres");
  checkObject(options.remote, "remote");
  // Named with their prefix here (the store would name them without it).
  checkKnownKeys(options.hnsw, OPTION_KEYS.hnswStore.filter((k) => k !== "path" && k !== "index"), "hnsw.");
  checkKnownKeys(options.postgres, OPTION_KEYS.postgresStore.filter((k) => k !== "index"), "postgres.");
  checkKnownKeys(options.remote, OPTION_KEYS.remoteStore.filter((k) => k !== "url" && k !== "apiKey"), "remote.");
  const env = options.env ?? process.env;
  const kind = memoryStoreKindFromEnv(env);
  if (kind === "remote") {
    const url = present(env, MEMORY_STORE_ENV.url)!;
    checkProtocol(MEMORY_STORE_ENV.url, url, ["http:", "https:"]);
    if (urlHasCredentials(url)) {
      throw new MemoryStoreConfigError(
        `memoryStoreFromEnv: ${MEMORY_STORE_ENV.url} carries a user name or password (${JSON.stringify(redactUrl(url))}); fetch refuses such URLs and they would show in every error. Put the key in ${MEMORY_STORE_ENV.apiKey} instead`,
      );
    }
  }
  if (kind === "hnsw" && present(env, MEMORY_STORE_ENV.path)!.includes("\0")) {
    throw new MemoryStoreConfigError(`memoryStoreFromEnv: ${MEMORY_STORE_ENV.path} contains a NUL character, which no file system path can hold`);
  }
  if (kind === "postgres") checkProtocol(MEMORY_STORE_ENV.databaseUrl, present(env, MEMORY_STORE_ENV.databaseUrl)!, ["postgres:", "postgresql:"]);
  const index = (): IndexConfig => options.index ?? localMemoryIndex();
  if (kind === "remote") {
    return new RemoteStore({ ...options.remote, url: present(env, MEMORY_STORE_ENV.url)!, apiKey: present(env, MEMORY_STORE_ENV.apiKey) });
  }
  if (kind === "hnsw") {
    return new HNSWStore({ ...options.hnsw, path: present(env, MEMORY_STORE_ENV.path)!, index: index() });
  }
  const connectionString = present(env, MEMORY_STORE_ENV.databaseUrl)!;
  const postgresIndex = index();
  return new LazyStore("PostgresMemoryStore", async () => {
    const { PostgresMemoryStore } = await import("../store/postgres/index.js");
    return new PostgresMemoryStore({ ...options.postgres, connectionString, index: postgresIndex });
  });
}
