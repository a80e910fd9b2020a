import { checkBoolean, checkFunction, checkKnownKeys, checkString } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import Fastify, { type FastifyInstance } from "fastify";
import { InvalidArgumentError } from "../errors.js";
import { installAuth } from "./auth.js";
import { checkOneHost } from "./host-guard.js";
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from "./http-errors.js";
import { installJsonDepthLimit } from "./json-body.js";
import { MAX_ID_LENGTH, registerMemoryRoutes } from "./memory-routes.js";
import { checkLayout, defaultMemoryLayout } from "../scope/memory-layout.js";
import type { MemoryServerOptions } from "./options.js";
import { requestLogger } from "./request-log.js";
import { installResponseLimit } from "./response-limits.js";
import { applySecurityHeaders } from "./security-headers.js";
import { registerStoreRoutes } from "./store-routes.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The store this memory server serves (for plugins; confine calls with `scopeFor(request)`). */
    memoryStore: BaseStore;
  }
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new InvalidArgumentError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * A Fastify app (not yet listening) that serves a store over HTTP:
 * LangGraph's store API (`/store/items`, `/store/items/search`,
 * `/store/namespaces`, as the official SDK calls them), `POST /store/batch`
 * (for `RemoteStore`), the memory endpoints (`/v1/store/…`) and `GET /ok`.
 *
 * @example
 * ```ts
 * const app = createMemoryServer({ store: new HNSWStore({ path: "./memory", index }), apiKey: process.env.MEMORY_API_KEY });
 * await app.listen({ host: "127.0.0.1", port: 8787 });
 * ```
 *
 * Refuses to build without some way in: an `apiKey`, an `authenticate` hook,
 * or `allowUnauthenticated: true` said explicitly.
 */
export function createMemoryServer(options: MemoryServerOptions): FastifyInstance {
  if (!options?.store || typeof options.store.batch !== "function") throw new InvalidArgumentError("createMemoryServer needs a store (a BaseStore)");
  if (!options.apiKey && !options.authenticate && options.allowUnauthenticated !== true) {
    throw new InvalidArgumentError("createMemoryServer needs an apiKey, an authenticate hook, or allowUnauthenticated: true (loopback only)");
  }
  for (const key of Array.isArray(options.apiKey) ? options.apiKey : options.apiKey !== undefined ? [options.apiKey] : []) {
    if (typeof key !== "string" || key.length < 8) throw new InvalidArgumentError("each apiKey must be a string of at least 8 characters");
  }
  checkKnownKeys(options, OPTION_KEYS.memoryServer);
  checkFunction(options.authenticate, "authenticate");
  checkBoolean(options.allowUnauthenticated, "allowUnauthenticated");
  checkBoolean(options.closeStore, "closeStore");
  checkBoolean(options.logValues, "logValues");
  checkString(options.usersLabel, "usersLabel");
  const usersLabel = options.usersLabel ?? "users";
  if (!usersLabel || usersLabel.includes(".") || usersLabel === "langgraph") {
    throw new InvalidArgumentError(`usersLabel ${JSON.stringify(usersLabel)} is not a usable namespace label`);
  }
  const maxLimit = positiveInteger("maxLimit", options.maxLimit, 1000);
  const maxBatchOperations = positiveInteger("maxBatchOperations", options.maxBatchOperations, 1000);
  const maxResults = positiveInteger("maxResultsPerRequest", options.maxResultsPerRequest, 10_000);
  const maxResponseBytes = positiveInteger("maxResponseBytes", options.maxResponseBytes, 16 * 1024 * 1024);
  const maxJsonDepth = positiveInteger("maxJsonDepth", options.maxJsonDepth, 128);
  if (options.allowedHosts !== undefined && (!Array.isArray(options.allowedHosts) || options.allowedHosts.some((h) => typeof h !== "string" || h === ""))) {
    throw new InvalidArgumentError(`allowedHosts must be an array of host names, got ${JSON.stringify(options.allowedHosts)}`);
  }

  const app = Fastify({
    logger: requestLogger(options.logger, { logValues: options.logValues }),
    bodyLimit: positiveInteger("bodyLimit", options.bodyLimit, 1024 * 1024),
    requestTimeout: positiveInteger("requestTimeout", options.requestTimeout, 30_000),
    // No type coercion (a label 1 stays a number and is refused) and no silent dropping of unknown fields.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // Path ids may be MAX_ID_LENGTH characters, each percent-encoded as up to 12 bytes; the schema enforces the limit itself.
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 12 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Node's own refusal of a request without Host has none of the server's headers: checkOneHost refuses it instead.
    http: { requireHostHeader: false },
  });
  app.decorate("memoryStore", options.store);
  installErrorHandling(app, { logValues: options.logValues });
  installJsonDepthLimit(app, maxJsonDepth);
  app.addHook("onSend", async (_request, reply, payload) => {
    applySecurityHeaders(reply);
    return payload;
  });
  installResponseLimit(app, maxResponseBytes);
  app.addHook("onRequest", async (request) => checkOneHost(request));
  installAuth(app, options);

  app.get("/ok", { config: { access: "public" } }, async () => ({ ok: true }));
  registerStoreRoutes(app, options.store, { maxLimit, maxBatchOperations, maxResults });
  const layout = options.layout === undefined ? defaultMemoryLayout({ facts: [usersLabel, "{user_id}"] }) : checkLayout(options.layout, "memory server layout");
  registerMemoryRoutes(app, options.store, { usersLabel, maxLimit, layout });
  for (const plugin of options.plugins ?? []) app.register(plugin);

  if (options.closeStore !== false) {
    app.addHook("onClose", async () => {
      const store = options.store as BaseStore & { close?: () => Promise<void> };
      if (typeof store.close === "function") await store.close();
      else await store.stop();
    });
  }
  return app;
}
