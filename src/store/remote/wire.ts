import type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  MatchCondition,
  Operation,
  PutOperation,
  SearchItem,
  SearchOperation,
} from "@langchain/langgraph-checkpoint";
import * as errors from "../../errors.js";
import type { QueryAdapterChoice } from "../../embeddings/query-adapter.js";
import type { RetrievalMode } from "../retrieval-mode.js";
import type { PutCondition } from "../conditional-put.js";
import type { MemoryGetOperation, MemoryPutOperation, MemorySearchOperation } from "../operations.js";

/**
 * The JSON shapes the memory server and {@link RemoteStore} exchange. Items
 * use the field names of LangGraph's store API (`created_at`, `updated_at`,
 * `namespace_prefix`, `max_depth`), so one vocabulary serves the SDK routes
 * and the batch route.
 */
export interface WireItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  score?: number;
}

export type WireOperation =
  | { op: "get"; namespace: string[]; key: string; refresh_ttl?: boolean | null }
  | { op: "put"; namespace: string[]; key: string; value: Record<string, unknown> | null; index?: false | string[] | null; ttl?: number | null; if_value?: PutCondition | null }
  | { op: "search"; namespace_prefix: string[]; filter?: Record<string, unknown> | null; limit?: number; offset?: number; query?: string | null; refresh_ttl?: boolean | null; retrieval?: RetrievalMode | null; query_adapter?: QueryAdapterChoice | null }
  | { op: "list_namespaces"; match_conditions?: { match_type: "prefix" | "suffix"; path: string[] }[]; max_depth?: number; limit?: number; offset?: number };

/** One result per operation: an item or null (get), null (put), items (search), namespaces (list). */
export type WireResult = WireItem | null | WireItem[] | string[][];

/** The error body every failed request carries. */
export interface WireError {
  /** The error's class name, e.g. `InvalidNamespaceError`. */
  error: string;
  message: string;
  statusCode: number;
  /** Extra fields of some errors (`path`, `pid`, `file`). */
  details?: Record<string, unknown>;
}

export function itemToWire(item: Item | SearchItem, mapNamespace: (ns: string[]) => string[] = (ns) => ns): WireItem {
  const out: WireItem = {
    namespace: mapNamespace(item.namespace),
    key: item.key,
    value: item.value,
    created_at: new Date(item.createdAt).toISOString(),
    updated_at: new Date(item.updatedAt).toISOString(),
  };
  const score = (item as SearchItem).score;
  if (typeof score === "number") out.score = score;
  return out;
}

export function itemFromWire(wire: WireItem): SearchItem {
  const item: SearchItem = {
    namespace: wire.namespace,
    key: wire.key,
    value: wire.value,
    createdAt: new Date(wire.created_at),
    updatedAt: new Date(wire.updated_at),
  };
  if (typeof wire.score === "number") item.score = wire.score;
  return item;
}

/** Which kind of operation `op` is, by the fields LangGraph's stores look at. */
export function operationKind(op: Operation): WireOperation["op"] {
  if ("namespacePrefix" in op) return "search";
  if ("value" in op) return "put";
  if ("namespace" in op && "key" in op) return "get";
  return "list_namespaces";
}

export function operationToWire(op: Operation): WireOperation {
  switch (operationKind(op)) {
    case "search": {
      const s = op as MemorySearchOperation;
      const wire: WireOperation = { op: "search", namespace_prefix: s.namespacePrefix, filter: s.filter, limit: s.limit, offset: s.offset, query: s.query };
      if (s.refreshTtl !== undefined) wire.refresh_ttl = s.refreshTtl;
      if (s.retrieval !== undefined) wire.retrieval = s.retrieval;
      if (s.queryAdapter !== undefined) wire.query_adapter = s.queryAdapter;
      return wire;
    }
    case "put": {
      const p = op as MemoryPutOperation;
      const wire: WireOperation = { op: "put", namespace: p.namespace, key: p.key, value: p.value, index: p.index, ttl: p.ttl };
      if (p.ifValue !== undefined) wire.if_value = p.ifValue;
      return wire;
    }
    case "get": {
      const g = op as MemoryGetOperation;
      const wire: WireOperation = { op: "get", namespace: g.namespace, key: g.key };
      if (g.refreshTtl !== undefined) wire.refresh_ttl = g.refreshTtl;
      return wire;
    }
    default: {
      const l = op as ListNamespacesOperation;
      return {
        op: "list_namespaces",
        match_conditions: l.matchConditions?.map((c) => ({ match_type: c.matchType, path: c.path })),
        max_depth: l.maxDepth,
        limit: l.limit,
        offset: l.offset,
      };
    }
  }
}

export function operationFromWire(wire: WireOperation): Operation {
  switch (wire.op) {
    case "search": {
      const search: MemorySearchOperation = {
        namespacePrefix: wire.namespace_prefix,
        filter: wire.filter ?? undefined,
        limit: wire.limit ?? 10,
        offset: wire.offset ?? 0,
        query: wire.query ?? undefined,
      };
      if (typeof wire.refresh_ttl === "boolean") search.refreshTtl = wire.refresh_ttl;
      if (typeof wire.retrieval === "string") search.retrieval = wire.retrieval;
      // Any value goes on, so the store refuses a bad one by name (as `retrieval`).
      if (wire.query_adapter !== undefined && wire.query_adapter !== null) search.queryAdapter = wire.query_adapter;
      return search;
    }
    case "put": {
      const put: MemoryPutOperation = { namespace: wire.namespace, key: wire.key, value: wire.value, index: wire.index ?? undefined };
      if (wire.ttl !== undefined) put.ttl = wire.ttl;
      if (wire.if_value) put.ifValue = wire.if_value;
      return put;
    }
    case "get": {
      const get: MemoryGetOperation = { namespace: wire.namespace, key: wire.key };
      if (typeof wire.refresh_ttl === "boolean") get.refreshTtl = wire.refresh_ttl;
      return get;
    }
    case "list_namespaces":
      return {
        matchConditions: wire.match_conditions?.map((c): MatchCondition => ({ matchType: c.match_type, path: c.path })),
        maxDepth: wire.max_depth,
        limit: wire.limit ?? 100,
        offset: wire.offset ?? 0,
      };
  }
}

/** HTTP status for each named error; anything else is a 500. */
const STATUS: Record<string, number> = {
  InvalidNamespaceError: 400,
  InvalidValueError: 400,
  InvalidArgumentError: 400,
  InvalidFilterError: 400,
  MissingConfigError: 400,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  NotFoundError: 404,
  PayloadTooLargeError: 413,
  EmbeddingError: 502,
  StoreLockedError: 503,
  StoreClosedError: 503,
  CorruptStoreError: 503,
  IncompatibleStoreError: 503,
  EncryptionError: 503,
  EmbedderRequiredError: 409,
  StoreConflictError: 409,
  RedactionError: 500,
  HostNotAllowedError: 421,
  AccessRuleMissingError: 403,
  JsonTooDeepError: 400,
  ResponseTooLargeError: 413,
};

/** The status and body a server sends for `error`. */
export function errorToWire(error: unknown): WireError {
  const e = error instanceof Error ? error : new Error(String(error));
  const statusCode = STATUS[e.name];
  if (statusCode === undefined) return { error: "InternalServerError", message: e.message, statusCode: 500 };
  const body: WireError = { error: e.name, message: e.message, statusCode };
  if (e instanceof errors.StoreLockedError) body.details = { path: e.path, pid: e.pid };
  if (e instanceof errors.CorruptStoreError) body.details = { file: e.file };
  if (e instanceof errors.EmbedderRequiredError) body.details = { embedder: e.embedder };
  return body;
}

/** Rebuilds the named error a server sent, as an instance of the same class. */
export function errorFromWire(status: number, body: unknown): Error {
  const wire = (typeof body === "object" && body !== null ? body : {}) as Partial<WireError>;
  const name = typeof wire.error === "string" ? wire.error : undefined;
  const message = typeof wire.message === "string" ? wire.message : `HTTP ${status}`;
  const d = wire.details ?? {};
  switch (name) {
    case "InvalidNamespaceError":
      return new errors.InvalidNamespaceError(message);
    case "InvalidValueError":
      return new errors.InvalidValueError(message);
    case "InvalidArgumentError":
      return new errors.InvalidArgumentError(message);
    case "InvalidFilterError":
      return new errors.InvalidFilterError(message);
    case "StoreConflictError":
      return new errors.StoreConflictError(message);
    case "EncryptionError":
      return new errors.EncryptionError(message);
    case "EmbedderRequiredError":
      return new errors.EmbedderRequiredError(message, String(d.embedder ?? ""));
    case "RedactionError":
      return new errors.RedactionError(message);
    case "MissingConfigError":
      return new errors.MissingConfigError(message);
    case "UnauthorizedError":
      return new errors.UnauthorizedError(message);
    case "ForbiddenError":
      return new errors.ForbiddenError(message);
    case "NotFoundError":
      return new errors.NotFoundError(message);
    case "PayloadTooLargeError":
      return new errors.PayloadTooLargeError(message);
    case "EmbeddingError":
      return new errors.EmbeddingError(message);
    case "StoreLockedError":
      return new errors.StoreLockedError(message, String(d.path ?? ""), Number(d.pid ?? 0));
    case "StoreClosedError":
      return new errors.StoreClosedError(message);
    case "CorruptStoreError":
      return new errors.CorruptStoreError(message, String(d.file ?? ""));
    case "IncompatibleStoreError":
      return new errors.IncompatibleStoreError(message);
    case "HostNotAllowedError":
      return new errors.HostNotAllowedError(message);
    case "AccessRuleMissingError":
      return new errors.AccessRuleMissingError(message);
    case "JsonTooDeepError":
      return new errors.JsonTooDeepError(message);
    case "ResponseTooLargeError":
      return new errors.ResponseTooLargeError(message);
    default:
      return new errors.RemoteStoreError(`memory server answered ${status}${name ? ` ${name}` : ""}: ${message}`, status, name);
  }
}
