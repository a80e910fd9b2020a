import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import type { FastifyInstance } from "fastify";
import { InvalidArgumentError } from "../errors.js";
import type { QueryAdapterChoice } from "../embeddings/query-adapter.js";
import type { RetrievalMode } from "../store/retrieval-mode.js";
import { operationFromWire, type WireItem, type WireOperation } from "../store/remote/wire.js";
import { runScoped, type BatchLimits } from "./scoped-batch.js";
import { validateNamespace } from "../store/namespace.js";
import { supportsConditionalPuts } from "../store/conditional-put.js";
import { scopeFor } from "./scope.js";

const labels = { type: "array" } as const; // labels are checked by validateNamespace, for named errors
const page = { type: "integer", minimum: 0 } as const;
const nullableObject = { type: ["object", "null"] } as const;
const user = { access: "user" } as const; // any caller, confined to its scope

const putBody = {
  type: "object",
  required: ["namespace", "key", "value"],
  properties: {
    namespace: labels,
    key: { type: "string" },
    value: {}, // checked by validateValue, for a named InvalidValueError
    index: { anyOf: [{ type: "null" }, { const: false }, { type: "array", items: { type: "string" } }] },
    ttl: { type: ["number", "null"] },
  },
} as const;

const deleteBody = { type: "object", required: ["namespace", "key"], properties: { namespace: labels, key: { type: "string" } } } as const;

const getQuery = {
  type: "object",
  required: ["key"],
  properties: { namespace: { type: "string" }, key: { type: "string" }, refresh_ttl: { type: "string" } },
} as const;

const searchBody = {
  type: "object",
  properties: {
    namespace_prefix: labels,
    filter: nullableObject,
    limit: page,
    offset: page,
    query: { type: ["string", "null"] },
    refresh_ttl: { type: ["boolean", "null"] },
    retrieval: { type: ["string", "null"] }, // checked by the store (a named InvalidArgumentError)
    query_adapter: { type: ["boolean", "string", "null"] }, // checked by the store (a named InvalidArgumentError)
  },
} as const;

const namespacesBody = {
  type: "object",
  properties: { prefix: labels, suffix: labels, max_depth: { anyOf: [page, { type: "null" }] }, limit: page, offset: page },
} as const;

const wireOperation = {
  type: "object",
  required: ["op"],
  properties: { op: { enum: ["get", "put", "search", "list_namespaces"] } },
  allOf: [
    { if: { properties: { op: { const: "get" } } }, then: { required: ["namespace", "key"], additionalProperties: false, properties: { op: {}, namespace: labels, key: { type: "string" }, refresh_ttl: { type: ["boolean", "null"] } } } },
    {
      if: { properties: { op: { const: "put" } } },
      then: {
        required: ["namespace", "key", "value"],
        additionalProperties: false,
        properties: { ...putBody.properties, op: {}, if_value: { type: ["object", "null"], required: ["field", "equals"], additionalProperties: false, properties: { field: { type: "string", minLength: 1 }, equals: {} } } },
      },
    },
    {
      if: { properties: { op: { const: "search" } } },
      then: { required: ["namespace_prefix"], additionalProperties: false, properties: { ...searchBody.properties, op: {} } },
    },
    {
      if: { properties: { op: { const: "list_namespaces" } } },
      then: {
        additionalProperties: false,
        properties: {
          op: {},
          match_conditions: {
            type: "array",
            items: { type: "object", required: ["match_type", "path"], additionalProperties: false, properties: { match_type: { enum: ["prefix", "suffix"] }, path: labels } },
          },
          max_depth: page,
          limit: page,
          offset: page,
        },
      },
    },
  ],
} as const;

/**
 * LangGraph's store API, as the official SDK (`client.store.*`) speaks it,
 * plus `POST /store/batch` for `RemoteStore`. Every route is confined to the
 * caller's scope (see `scopeFor`).
 */
export function registerStoreRoutes(app: FastifyInstance, store: BaseStore, limits: BatchLimits & { maxBatchOperations: number }): void {
  const run = (request: Parameters<typeof scopeFor>[0], ops: Operation[]) => runScoped(store, scopeFor(request), ops, limits);

  app.put<{ Body: { namespace: string[]; key: string; value: Record<string, unknown>; index?: false | string[] | null; ttl?: number | null } }>(
    "/store/items",
    { config: user, schema: { body: putBody } },
    async (request, reply) => {
      const b = request.body;
      validateNamespace(b.namespace, { forWrite: true }); // put()'s rule: not under the reserved `langgraph` root
      await run(request, [operationFromWire({ op: "put", namespace: b.namespace, key: b.key, value: b.value, index: b.index, ttl: b.ttl })]);
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: { namespace?: string; key: string; refresh_ttl?: string } }>("/store/items", { config: user, schema: { querystring: getQuery } }, async (request, reply) => {
    const { namespace, key, refresh_ttl } = request.query;
    // The SDK joins labels with "." (labels cannot contain one).
    const ns = namespace ? namespace.split(".") : [];
    const refresh = refresh_ttl === "true" ? true : refresh_ttl === "false" ? false : undefined;
    const [item] = await run(request, [operationFromWire({ op: "get", namespace: ns, key, refresh_ttl: refresh })]);
    return reply.type("application/json").send(JSON.stringify(item ?? null));
  });

  app.delete<{ Body: { namespace: string[]; key: string } }>("/store/items", { config: user, schema: { body: deleteBody } }, async (request, reply) => {
    await run(request, [{ namespace: request.body.namespace, key: request.body.key, value: null }]);
    return reply.code(204).send();
  });

  app.post<{ Body: { namespace_prefix?: string[]; filter?: Record<string, unknown> | null; limit?: number; offset?: number; query?: string | null; refresh_ttl?: boolean | null; retrieval?: RetrievalMode | null; query_adapter?: QueryAdapterChoice | null } }>(
    "/store/items/search",
    { config: user, schema: { body: searchBody } },
    async (request) => {
      const b = request.body ?? {};
      const [items] = await run(request, [operationFromWire({ op: "search", namespace_prefix: b.namespace_prefix ?? [], filter: b.filter, limit: b.limit, offset: b.offset, query: b.query, refresh_ttl: b.refresh_ttl, retrieval: b.retrieval, query_adapter: b.query_adapter })]);
      return { items: items as WireItem[] };
    },
  );

  app.post<{ Body: { prefix?: string[]; suffix?: string[]; max_depth?: number | null; limit?: number; offset?: number } }>(
    "/store/namespaces",
    { config: user, schema: { body: namespacesBody } },
    async (request) => {
      const b = request.body ?? {};
      const match_conditions: { match_type: "prefix" | "suffix"; path: string[] }[] = [];
      if (b.prefix) match_conditions.push({ match_type: "prefix", path: b.prefix });
      if (b.suffix) match_conditions.push({ match_type: "suffix", path: b.suffix });
      const op = operationFromWire({ op: "list_namespaces", match_conditions, max_depth: b.max_depth ?? undefined, limit: b.limit, offset: b.offset });
      const [namespaces] = await run(request, [op]);
      return { namespaces: namespaces as string[][] };
    },
  );

  app.post<{ Body: { operations: WireOperation[] } }>(
    "/store/batch",
    { config: user, schema: { body: { type: "object", required: ["operations"], additionalProperties: false, properties: { operations: { type: "array", items: wireOperation } } } } },
    async (request) => {
      const ops = request.body.operations;
      if (ops.length > limits.maxBatchOperations) {
        throw new InvalidArgumentError(`a batch of ${ops.length} operations is larger than this server's maximum ${limits.maxBatchOperations}`);
      }
      if (ops.some((o) => o.op === "put" && o.if_value) && !supportsConditionalPuts(store)) {
        throw new InvalidArgumentError("this server's store does not support conditional puts (if_value); use HNSWStore or PostgresMemoryStore behind it");
      }
      return { results: await run(request, ops.map(operationFromWire)) };
    },
  );
}
