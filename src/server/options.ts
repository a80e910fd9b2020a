import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { FastifyPluginAsync, FastifyRequest, FastifyServerOptions } from "fastify";
import type { MemoryLayout } from "../scope/memory-layout.js";

/** What an `authenticate` hook returns for an end user. */
export interface AuthenticatedUser {
  /** The user's id. Every namespace the user reaches lies under `[usersLabel, identity]`. */
  identity: string;
}

/** Options for `createMemoryServer`. */
export interface MemoryServerOptions {
  /** The store to serve (usually an `HNSWStore`). */
  store: BaseStore;
  /**
   * Key(s) of trusted services, sent in the `x-api-key` header (as
   * LangGraph's SDK does). A matching key has access to every namespace.
   * @default undefined (no API key accepted)
   */
  apiKey?: string | string[];
  /**
   * Recognises end users (a JWT, a session cookie, …). Return `{ identity }`
   * or null when the request carries no credentials this hook knows. An
   * end user only reaches namespaces under `[usersLabel, identity]`: the
   * server prefixes every namespace the user sends with that root, and
   * strips it from what it returns.
   * @default undefined
   */
  authenticate?: (request: FastifyRequest) => Promise<AuthenticatedUser | null | undefined> | AuthenticatedUser | null | undefined;
  /**
   * Accept requests without credentials, from loopback addresses only.
   * Without `apiKey` and `authenticate` such requests have full access (a
   * local development server); with either, they are the end user
   * `anonymous`.
   * @default false
   */
  allowUnauthenticated?: boolean;
  /**
   * The first label of every user's namespace root.
   * @default "users"
   */
  usersLabel?: string;
  /**
   * Where a person's memory lives: `POST /v1/store/memories/forget` with
   * `all: true` erases every kind it names for the user (facts, episodes,
   * learned instructions and feedback of every agent). Its facts kind should
   * be `[usersLabel, "{user_id}"]`, where `/v1` reads and writes.
   * @default defaultMemoryLayout({ facts: [usersLabel, "{user_id}"] })
   */
  layout?: MemoryLayout;
  /**
   * Largest request body, in bytes.
   * @default 1048576 (1 MiB)
   */
  bodyLimit?: number;
  /**
   * Largest `limit` a search or list may ask for.
   * @default 1000
   */
  maxLimit?: number;
  /**
   * Most operations in one `POST /store/batch`.
   * @default 1000
   */
  maxBatchOperations?: number;
  /**
   * Milliseconds a client has to send a whole request (Fastify's `requestTimeout`).
   * @default 30000
   */
  requestTimeout?: number;
  /**
   * Fastify's logger (pino): `false` for none, `true` or pino options for a
   * structured request log. Its lines carry request ids, methods, routes
   * as declared, statuses, error classes and timings — no URLs, labels,
   * keys, filter values or error messages unless `logValues` is set (your
   * own `serializers` replace the server's).
   * @default { level: "info" }
   */
  logger?: FastifyServerOptions["logger"];
  /**
   * Also log request URLs (with their labels and query strings), client
   * addresses and error messages (which name the offending values). Logs
   * then hold personal data: turn it on for debugging only.
   * @default false
   */
  logValues?: boolean;
  /**
   * Fastify plugins registered after the auth hook (so it applies to them);
   * they can call `scopeFor(request)` and use `app.memoryStore`.
   * @default []
   */
  plugins?: FastifyPluginAsync[];
  /**
   * Close the store when the server closes.
   * @default true
   */
  closeStore?: boolean;
  /**
   * `Host` names the server answers for requests it serves without
   * credentials (every request of a server with neither `apiKey` nor
   * `authenticate`; the anonymous path otherwise): the DNS-rebinding guard.
   * An entry `"name"` allows that name on the port the request arrived on,
   * `"name:port"` that port only. Other hosts get `HostNotAllowedError` (421).
   * `startMemoryServer` adds the address it listens on (e.g. `127.0.0.2`).
   * @default ["127.0.0.1", "localhost", "[::1]"]
   */
  allowedHosts?: string[];
  /**
   * Deepest nesting of arrays and objects a JSON body may have; deeper ones
   * are refused with `JsonTooDeepError` (400) before they are parsed.
   * @default 128
   */
  maxJsonDepth?: number;
  /**
   * Most results one request may return: the `limit`s of a batch's searches
   * and namespace lists added up (a get counts 1), checked before the store
   * runs. A larger batch is refused with `ResponseTooLargeError` (413).
   * @default 10000
   */
  maxResultsPerRequest?: number;
  /**
   * Largest response body, in bytes; a larger answer is replaced by
   * `ResponseTooLargeError` (413).
   * @default 16777216 (16 MiB)
   */
  maxResponseBytes?: number;
}

/** Options for `startMemoryServer`. */
export interface StartMemoryServerOptions extends MemoryServerOptions {
  /**
   * Address to listen on. Without auth (`allowUnauthenticated` alone) it must be a loopback address.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Port; 0 picks a free one.
   * @default 8787
   */
  port?: number;
  /**
   * Close gracefully on SIGTERM and SIGINT (stop accepting, finish in-flight
   * requests, close the store), then exit the process.
   * @default true
   */
  handleSignals?: boolean;
}
