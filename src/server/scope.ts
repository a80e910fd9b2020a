import type { FastifyRequest } from "fastify";
import type { MatchCondition } from "@langchain/langgraph-checkpoint";
import { ForbiddenError, InvalidArgumentError } from "../errors.js";
import { hasPrefix } from "../store/namespace.js";
import { encodeLabel } from "../scope/namespace-template.js";

/**
 * Who a request acts for, and the part of the store it may reach.
 *
 * - `service`: a trusted service (a matching API key): every namespace.
 * - `open`: a server started with `allowUnauthenticated` and no auth: every namespace (loopback only).
 * - `user`: an end user: only namespaces under `root` (`[usersLabel, identity]`).
 */
export interface RequestScope {
  kind: "service" | "open" | "user";
  /** The end user's id (kind `user` only). */
  identity?: string;
  /** Prepended to every namespace the caller sends; `[]` for full access. */
  root: string[];
  /** The namespace in the store for a namespace the caller sent. */
  toStore(namespace: string[]): string[];
  /** The namespace to show the caller for one in the store. */
  fromStore(namespace: string[]): string[];
  /** listNamespaces conditions confined to the root (a prefix condition always starts with it). */
  conditions(conditions: MatchCondition[] | undefined): MatchCondition[] | undefined;
  /**
   * The user the memory endpoints act for: an end user's own identity (asking
   * for another is a `ForbiddenError`); for full access, `requested`, else `anonymous`.
   */
  userId(requested: unknown): string;
}

export function makeScope(kind: RequestScope["kind"], usersLabel: string, identity?: string): RequestScope {
  const root = kind === "user" ? [usersLabel, encodeLabel(identity!)] : [];
  return {
    kind,
    identity,
    root,
    toStore: (ns) => [...root, ...ns],
    fromStore: (ns) => {
      // Never show an end user anything outside their root (the store cannot return it, but be sure).
      if (!hasPrefix(ns, root)) throw new ForbiddenError("item outside the caller's namespace");
      return ns.slice(root.length);
    },
    conditions: (conditions) => {
      if (root.length === 0) return conditions;
      const out = (conditions ?? []).map((c) => (c.matchType === "prefix" ? { ...c, path: [...root, ...c.path] } : c));
      if (!out.some((c) => c.matchType === "prefix")) out.unshift({ matchType: "prefix", path: root });
      return out;
    },
    userId: (requested) => {
      if (requested !== undefined && requested !== null && (typeof requested !== "string" || requested === "")) {
        throw new InvalidArgumentError(`user_id must be a non-empty string, got ${JSON.stringify(requested)}`);
      }
      if (kind === "user") {
        if (requested != null && requested !== identity) {
          throw new ForbiddenError(`user '${identity}' cannot act for user_id ${JSON.stringify(requested)}`);
        }
        return identity!;
      }
      return (requested as string | undefined) ?? "anonymous";
    },
  };
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the memory server's auth hook; read it with `scopeFor(request)`. */
    memoryScope: RequestScope | null;
  }
}

/**
 * The scope of an authenticated request: who it acts for and which
 * namespaces it may reach. Routes and plugins registered through
 * `createMemoryServer` use it to confine every store call.
 */
export function scopeFor(request: FastifyRequest): RequestScope {
  const scope = request.memoryScope;
  if (!scope) throw new ForbiddenError(`route ${request.url} is not behind the memory server's auth hook`);
  return scope;
}
