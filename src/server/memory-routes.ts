import { randomUUID } from "node:crypto";
import type { BaseStore, Item, SearchItem } from "@langchain/langgraph-checkpoint";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidArgumentError, NotFoundError } from "../errors.js";
import { encodeLabel } from "../scope/namespace-template.js";
import { eraseVersionsOf } from "../scope/erase-prefixes.js";
import { erasePerson } from "../privacy/erase-person.js";
import type { MemoryLayout } from "../scope/memory-layout.js";
import { scopeFor } from "./scope.js";

/** A memory as the `/v1` endpoints return it. */
export interface WireMemory {
  id: string;
  text: unknown;
  value: Record<string, unknown>;
  /**
   * The item's namespace as this caller addresses it in the store API: the
   * whole namespace (`["users", "42"]`) for a service or an open local
   * server, the part under the user's own root for an end user.
   */
  namespace: string[];
  created_at: string;
  updated_at: string;
  score?: number;
}

const userId = { type: ["string", "null"] } as const;
const page = { type: "integer", minimum: 0 } as const;
const filter = { type: ["object", "null"] } as const;
/** The longest memory id, for create (`id`), forget (`ids`) and every `/v1/store/memories/:id` path alike. */
export const MAX_ID_LENGTH = 256;
const id = { type: "string", minLength: 1, maxLength: MAX_ID_LENGTH } as const;
const user = { access: "user" } as const;

const createBody = {
  type: "object",
  required: ["text"],
  additionalProperties: false,
  properties: { text: { type: "string", minLength: 1 }, metadata: { type: "object" }, id, user_id: userId },
} as const;
const updateBody = {
  type: "object",
  required: ["text"],
  additionalProperties: false,
  properties: { text: { type: "string", minLength: 1 }, metadata: { type: "object" }, user_id: userId },
} as const;
const listBody = { type: "object", additionalProperties: false, properties: { user_id: userId, filter, limit: page, offset: page } } as const;
const searchBody = {
  type: "object",
  required: ["query"],
  additionalProperties: false,
  properties: { query: { type: "string" }, user_id: userId, filter, limit: page, offset: page },
} as const;
const forgetBody = {
  type: "object",
  additionalProperties: false,
  properties: { user_id: userId, ids: { type: "array", items: id }, filter, all: { type: "boolean" } },
} as const;
const userBody = { type: ["object", "null"], additionalProperties: false, properties: { user_id: userId } } as const;
const idParams = { type: "object", required: ["id"], properties: { id } } as const;
const userQuery = { type: "object", additionalProperties: false, properties: { user_id: { type: "string" } } } as const;

type Body = { user_id?: string | null; text?: string; metadata?: Record<string, unknown>; id?: string; filter?: Record<string, unknown> | null; limit?: number; offset?: number; query?: string; ids?: string[]; all?: boolean };

/**
 * The memory endpoints. Each acts for one user (see `RequestScope.userId`),
 * whose memories are items at `[usersLabel, userId]` in the store, the same
 * place a graph using the namespace template `["users", "{user_id}"]` keeps
 * them; list, search and forget cover that namespace and everything under it.
 */
export function registerMemoryRoutes(app: FastifyInstance, store: BaseStore, options: { usersLabel: string; maxLimit: number; layout: MemoryLayout }): void {
  const userNamespace = (request: FastifyRequest, body: Body | null | undefined) => [
    options.usersLabel,
    encodeLabel(scopeFor(request).userId(body?.user_id ?? undefined)),
  ];
  const toMemory = (request: FastifyRequest) => (item: Item | SearchItem): WireMemory => {
    const out: WireMemory = {
      id: item.key,
      text: item.value.text,
      value: item.value,
      namespace: scopeFor(request).fromStore(item.namespace),
      created_at: new Date(item.createdAt).toISOString(),
      updated_at: new Date(item.updatedAt).toISOString(),
    };
    if (typeof (item as SearchItem).score === "number") out.score = (item as SearchItem).score;
    return out;
  };
  const checkLimit = (limit: number | undefined) => {
    if (limit !== undefined && limit > options.maxLimit) throw new InvalidArgumentError(`limit ${limit} is larger than this server's maximum ${options.maxLimit}`);
  };
  const valueOf = (b: Body) => ({ text: b.text, source: "api", ...(b.metadata ? { metadata: b.metadata } : {}) });

  app.post<{ Body: Body }>("/v1/store/memories", { config: user, schema: { body: createBody } }, async (request, reply) => {
    const ns = userNamespace(request, request.body);
    const key = request.body.id ?? randomUUID();
    await store.put(ns, key, valueOf(request.body));
    const item = await store.get(ns, key);
    return reply.code(201).send(toMemory(request)(item!));
  });

  app.post<{ Body: Body }>("/v1/store/memories/list", { config: user, schema: { body: listBody } }, async (request) => {
    const b = request.body ?? {};
    checkLimit(b.limit);
    const ns = userNamespace(request, b);
    const items = await store.search(ns, { filter: b.filter ?? undefined, limit: b.limit ?? 10, offset: b.offset ?? 0 });
    return { memories: items.map(toMemory(request)) };
  });

  app.post<{ Body: Body }>("/v1/store/search", { config: user, schema: { body: searchBody } }, async (request) => {
    const b = request.body;
    checkLimit(b.limit);
    const ns = userNamespace(request, b);
    const items = await store.search(ns, { query: b.query, filter: b.filter ?? undefined, limit: b.limit ?? 10, offset: b.offset ?? 0 });
    return { memories: items.map(toMemory(request)) };
  });

  app.post<{ Body: Body }>("/v1/store/memories/forget", { config: user, schema: { body: forgetBody } }, async (request) => {
    const b = request.body ?? {};
    if (!b.ids && !b.filter && b.all !== true) {
      throw new InvalidArgumentError("forget needs ids, a filter, or all: true (to forget every memory of the user)");
    }
    const ns = userNamespace(request, b);
    const doomed = new Map<string, { namespace: string[]; key: string }>();
    if (b.ids) {
      for (const key of b.ids) if (await store.get(ns, key)) doomed.set(JSON.stringify([ns, key]), { namespace: ns, key });
    }
    if (b.filter || b.all) {
      const pageSize = 500;
      for (let offset = 0; ; offset += pageSize) {
        const items = await store.search(ns, { filter: b.filter ?? undefined, limit: pageSize, offset });
        for (const item of items) doomed.set(JSON.stringify([item.namespace, item.key]), { namespace: item.namespace, key: item.key });
        if (items.length < pageSize) break;
      }
    }
    const targets = [...doomed.values()];
    if (b.all === true && !b.filter) {
      // The whole person, every kind of the layout (facts, episodes, learned instructions and
      // feedback of every agent), kept versions and cursors, purged from disk.
      const userId = scopeFor(request).userId(b.user_id ?? undefined);
      const report = await erasePerson(store, { userId, layout: options.layout, namespaces: [ns] });
      const facts = report.kinds?.facts?.items ?? report.namespaces[0]?.items ?? 0;
      return { deleted: facts, ids: targets.map((t) => t.key), erased: report.kinds, kept: report.kept };
    }
    if (targets.length) await store.batch(targets.map((t) => ({ namespace: t.namespace, key: t.key, value: null })));
    // Forgotten means no kept version either (a ProtectedStore just made one of each delete).
    await eraseVersionsOf(store, targets);
    return { deleted: targets.length, ids: targets.map((t) => t.key) };
  });

  const getMemory = async (request: FastifyRequest, user: Body | null | undefined, key: string) => {
    const ns = userNamespace(request, user);
    const item = await store.get(ns, key);
    if (!item) throw new NotFoundError(`no memory '${key}' for this user`);
    return toMemory(request)(item);
  };

  app.get<{ Params: { id: string }; Querystring: { user_id?: string } }>("/v1/store/memories/:id", { config: user, schema: { params: idParams, querystring: userQuery } }, async (request) =>
    getMemory(request, request.query, request.params.id),
  );

  // The first way to read one memory, kept for clients written against it.
  app.post<{ Params: { id: string }; Body: Body | null }>("/v1/store/memories/:id", { config: user, schema: { params: idParams, body: userBody } }, async (request) =>
    getMemory(request, request.body, request.params.id),
  );

  app.put<{ Params: { id: string }; Body: Body }>("/v1/store/memories/:id", { config: user, schema: { params: idParams, body: updateBody } }, async (request) => {
    const ns = userNamespace(request, request.body);
    if (!(await store.get(ns, request.params.id))) throw new NotFoundError(`no memory '${request.params.id}' for this user`);
    await store.put(ns, request.params.id, valueOf(request.body));
    return toMemory(request)((await store.get(ns, request.params.id))!);
  });

  app.delete<{ Params: { id: string }; Body: Body | null }>("/v1/store/memories/:id", { config: user, schema: { params: idParams, body: userBody } }, async (request) => {
    const ns = userNamespace(request, request.body);
    if (!(await store.get(ns, request.params.id))) throw new NotFoundError(`no memory '${request.params.id}' for this user`);
    await store.delete(ns, request.params.id);
    return { deleted: 1, ids: [request.params.id] };
  });
}
