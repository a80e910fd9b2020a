import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { InvalidArgumentError, InvalidNamespaceError, MemoryError } from "../../errors.js";
import { LOOPBACK_HOSTS } from "../host-guard.js";
import { pageCsp } from "../security-headers.js";
import { InspectorApi, namespaceParam } from "./api.js";
import { installInspectorGuard } from "./guard.js";
import { renderPage } from "./page.js";
import { registerProcedureRoutes } from "./procedures-api.js";

/** Options for {@link inspectorPlugin}. */
export interface InspectorOptions {
  /** The store to inspect (any `BaseStore`; HNSWStore adds counts, TTL left and fast forget). */
  store: BaseStore;
  /**
   * The page's title.
   * @default "langgraph-memory"
   */
  title?: string;
  /**
   * `Host` names the inspector answers when it runs on its own (not behind
   * a memory server, whose `allowedHosts` applies then): the DNS-rebinding guard.
   * @default ["127.0.0.1", "localhost", "[::1]"]
   */
  allowedHosts?: string[];
}

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const bad = err instanceof InvalidArgumentError || err instanceof InvalidNamespaceError || (err as Error)?.name === "InvalidNamespaceError";
  const status = bad ? 400 : 500;
  return reply.code(status).send({ error: (err as Error)?.name ?? "Error", message: err instanceof MemoryError || bad ? (err as Error).message : String((err as Error)?.message ?? err) });
}

/**
 * The web inspector, as a Fastify plugin: `GET /` serves one server-rendered
 * page; its script calls JSON routes under `/inspector/api/`. Register it
 * behind the server's auth hook; the page sends the key as `x-api-key`
 * when opened as `/#key=<key>`.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(inspectorPlugin, { store });
 * ```
 */
export const inspectorPlugin: FastifyPluginAsync<InspectorOptions> = async (app, options) => {
  if (!options?.store) throw new InvalidArgumentError("inspectorPlugin needs { store }");
  const api = new InspectorApi(options.store);
  const title = options.title ?? "langgraph-memory";

  // The page is a shell without data (public, so a browser can open it); its
  // script loads everything through the JSON routes below, which are for
  // services (an API key) or an open loopback server, never for end users,
  // who would see everyone's memories. Each route declares its rule; the
  // guard checks the rule of the route Fastify matched.
  installInspectorGuard(app, options.allowedHosts ?? LOOPBACK_HOSTS);
  const service = { access: "service" } as const;
  const html = renderPage({ title, namespaces: [] });
  const csp = pageCsp(html); // the page's own inline script and style, by hash; nothing else runs
  app.get("/", { config: { access: "public" } }, async (_req, reply) => {
    return reply.type("text/html; charset=utf-8").header("content-security-policy", csp).send(html);
  });

  app.get("/inspector/api/namespaces", { config: service }, async (_req, reply) => {
    try {
      return { namespaces: await api.namespaces() };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: { namespace?: string; query?: string; limit?: string } }>("/inspector/api/memories", { config: service }, async (req, reply) => {
    try {
      const ns = namespaceParam(req.query.namespace ?? "");
      const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
      return { memories: await api.memories(ns, { query: req.query.query, limit }) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.delete<{ Body: { namespace?: unknown; key?: unknown } }>("/inspector/api/memories", { config: service }, async (req, reply) => {
    try {
      const ns = namespaceParam(req.body?.namespace);
      const key = req.body?.key;
      if (typeof key !== "string") throw new InvalidArgumentError("key must be a string");
      return { deleted: await api.deleteMemory(ns, key) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  registerProcedureRoutes(app, options.store, sendError);

  app.post<{ Body: { namespace?: unknown; confirm?: unknown } }>("/inspector/api/forget", { config: service }, async (req, reply) => {
    try {
      const ns = namespaceParam(req.body?.namespace);
      if (req.body?.confirm !== ns.join(".")) {
        throw new InvalidArgumentError(`forget needs confirm: ${JSON.stringify(ns.join("."))} (the namespace, typed again)`);
      }
      return await api.forget(ns);
    } catch (err) {
      return sendError(reply, err);
    }
  });
};
