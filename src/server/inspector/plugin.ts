import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { InvalidArgumentError, InvalidNamespaceError, MemoryError, NotFoundError } from "../../errors.js";
import { checkOptions } from "../../option-checks.js";
import { OPTION_KEYS } from "../../option-keys.js";
import { LOOPBACK_HOSTS } from "../host-guard.js";
import { pageCsp } from "../security-headers.js";
import { InspectorApi, layoutOfLabels, namespaceParam } from "./api.js";
import { checkLayout, type MemoryLayout } from "../../scope/memory-layout.js";
import { installInspectorGuard } from "./guard.js";
import { FILTER_FIELDS, MEMORY_SORTS, oneOf, pageParams } from "./listing.js";
import { appScript, appStyle, renderPage } from "./page.js";
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
   * First label of a user's memory namespace: "Forget" on `[usersLabel, id]`
   * asks for the user id and erases the user's memories and episodes.
   * @default "users"
   */
  usersLabel?: string;
  /**
   * First label of a user's episode namespace (`["episodes", id]`).
   * @default "episodes"
   */
  episodesLabel?: string;
  /**
   * Where a person's memory lives: "Forget" on a person's namespace of any
   * kind erases every kind it names for that person, learned instructions
   * are shown in their own view and never as memories, and bookkeeping
   * (versions, cursors, feedback) never as memories.
   * @default defaultMemoryLayout({ facts: [usersLabel, "{user_id}"], episodes: [episodesLabel, "{user_id}"] })
   */
  layout?: MemoryLayout;
  /**
   * `Host` names the inspector answers when it runs on its own (not behind
   * a memory server, whose `allowedHosts` applies then): the DNS-rebinding guard.
   * @default ["127.0.0.1", "localhost", "[::1]"]
   */
  allowedHosts?: string[];
}

/** The inspector's own options and the ones Fastify's `register` reads from the same object. */
const INSPECTOR_KEYS = [...OPTION_KEYS.inspector, "prefix", "logLevel", "logSerializers"];

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const bad = err instanceof InvalidArgumentError || err instanceof InvalidNamespaceError || (err as Error)?.name === "InvalidNamespaceError";
  const status = bad ? 400 : err instanceof NotFoundError ? 404 : 500;
  return reply.code(status).send({ error: (err as Error)?.name ?? "Error", message: err instanceof MemoryError || bad ? (err as Error).message : String((err as Error)?.message ?? err) });
}

type Query = Record<string, string | undefined>;

/**
 * The web inspector, as a Fastify plugin: `GET /` serves the page (a shell
 * without data), `/inspector/app.js` and `/inspector/app.css` its script and
 * style (no inline code, so it runs under `script-src 'self'`); the script
 * calls JSON routes under `/inspector/api/`. Register it behind the server's
 * auth hook; the page sends the API key typed into its key field as
 * `x-api-key` (the key stays in the tab's `sessionStorage`).
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(inspectorPlugin, { store });
 * ```
 */
export const inspectorPlugin: FastifyPluginAsync<InspectorOptions> = async (app, options) => {
  checkOptions(options, "inspectorPlugin options", INSPECTOR_KEYS, { optional: false });
  if (!options?.store) throw new InvalidArgumentError("inspectorPlugin needs { store }");
  for (const k of ["title", "usersLabel", "episodesLabel"] as const) {
    const v = options[k];
    if (v !== undefined && (typeof v !== "string" || v === "")) throw new InvalidArgumentError(`inspectorPlugin ${k} must be a non-empty string, got ${v === null ? "null" : typeof v}`);
  }
  const layout = options.layout === undefined
    ? layoutOfLabels({ usersLabel: options.usersLabel ?? "users", episodesLabel: options.episodesLabel ?? "episodes" })
    : checkLayout(options.layout, "inspector layout");
  const api = new InspectorApi(options.store, layout);
  const title = options.title ?? "langgraph-memory";
  const script = appScript();
  const style = appStyle();

  // The page, script and style carry no data (public, so a browser can open
  // them); the script loads everything through the JSON routes below, which
  // are for services (an API key) or an open loopback server, never for end
  // users, who would see everyone's memories. Each route declares its rule;
  // the guard checks the rule of the route Fastify matched.
  installInspectorGuard(app, options.allowedHosts ?? LOOPBACK_HOSTS);
  const service = { access: "service" } as const;
  const pub = { config: { access: "public" } } as const;
  const html = renderPage({ title });
  const csp = pageCsp(html); // no inline script or style: script-src 'self', style-src 'self'
  app.get("/", pub, async (_req, reply) => {
    return reply.type("text/html; charset=utf-8").header("content-security-policy", csp).header("cache-control", "no-store").send(html);
  });
  app.get("/inspector/app.js", pub, async (_req, reply) => {
    return reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(script);
  });
  app.get("/inspector/app.css", pub, async (_req, reply) => {
    return reply.type("text/css; charset=utf-8").header("cache-control", "no-cache").send(style);
  });
  // Memories are private: no browser or proxy keeps a copy of an API answer.
  app.addHook("onSend", async (req, reply) => {
    if (req.routeOptions.url?.startsWith("/inspector/api/")) reply.header("cache-control", "no-store");
  });

  const kinds = layout.kinds.map((k) => ({ name: k.name, view: k.view ?? "memories", namespace: k.namespace }));
  app.get("/inspector/api/info", { config: service }, async () => ({
    title,
    keepsHistory: api.keepsHistory,
    usersLabel: options.usersLabel ?? "users",
    episodesLabel: options.episodesLabel ?? "episodes",
    personKey: layout.personKey,
    kinds,
  }));

  app.get("/inspector/api/namespaces", { config: service }, async (_req, reply) => {
    try {
      return { namespaces: await api.namespaces() };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: Query }>("/inspector/api/memories", { config: service }, async (req, reply) => {
    try {
      const q = req.query;
      const ns = namespaceParam(q.namespace ?? "");
      const page = pageParams(q, { limit: 100 });
      const sort = q.sort === undefined || q.sort === "" ? undefined : oneOf(q.sort, MEMORY_SORTS, "sort", "updated-desc");
      const field = oneOf(q.field, FILTER_FIELDS, "field", "any");
      return await api.memories(ns, { ...page, query: q.query, filter: q.filter, field, sort });
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: Query }>("/inspector/api/memory", { config: service }, async (req, reply) => {
    try {
      return await api.memory(namespaceParam(req.query.namespace ?? ""), req.query.key);
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

  app.post<{ Body: { namespace?: unknown; key?: unknown; version?: unknown } }>("/inspector/api/restore", { config: service }, async (req, reply) => {
    try {
      return await api.restore(namespaceParam(req.body?.namespace), req.body?.key, req.body?.version);
    } catch (err) {
      return sendError(reply, err);
    }
  });

  registerProcedureRoutes(app, options.store, sendError);

  app.post<{ Body: { namespace?: unknown; confirm?: unknown } }>("/inspector/api/forget", { config: service }, async (req, reply) => {
    try {
      const ns = namespaceParam(req.body?.namespace);
      const person = api.personOf(ns);
      const accepted = person === undefined ? [ns.join(".")] : [person, ns.join(".")];
      if (typeof req.body?.confirm !== "string" || !accepted.includes(req.body.confirm)) {
        throw new InvalidArgumentError(`forget needs confirm: ${JSON.stringify(accepted[0])} (the ${person === undefined ? "namespace" : "user id"}, typed again)`);
      }
      return await api.forget(ns);
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: Query }>("/inspector/api/threads", { config: service }, async (req, reply) => {
    try {
      const ns = namespaceParam(req.query.namespace ?? "");
      return await api.threads(ns, { ...pageParams(req.query, { limit: 50 }), filter: req.query.filter });
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Querystring: Query }>("/inspector/api/thread", { config: service }, async (req, reply) => {
    try {
      const ns = namespaceParam(req.query.namespace ?? "");
      return await api.thread(ns, req.query.thread, pageParams(req.query, { limit: 200 }));
    } catch (err) {
      return sendError(reply, err);
    }
  });
};
