import type { FastifyInstance, FastifyRequest } from "fastify";
import { AccessRuleMissingError, ForbiddenError } from "../errors.js";
import type { RequestScope } from "./scope.js";

/**
 * Who may call a route, declared where the route is declared, as
 * `config: { access }`:
 *
 * - `"public"`: anyone (the health check, the inspector's empty page shell);
 * - `"user"`: any authenticated caller; an end user is confined to their own
 *   namespaces by the route (see `scopeFor`);
 * - `"service"`: trusted services (an API key) and an open loopback server
 *   only, never end users (the inspector's API, which sees every user).
 *
 * The memory server checks the rule of the route Fastify matched (so an
 * encoded, doubled-slash or case-changed path gets the rule of the route it
 * reaches, or a 404), and refuses every request to a route that declares
 * none (`AccessRuleMissingError`, 403).
 */
export type RouteAccess = "public" | "user" | "service";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Who may call this route on a memory server (see `RouteAccess`). Routes without it are refused. */
    access?: RouteAccess;
    /** Older spelling of `access: "public"`. */
    public?: boolean;
  }
  interface FastifyInstance {
    /** Every route registered on this memory server, with its declared access rule (as the server enforces it). */
    memoryRoutes: readonly MemoryRoute[];
  }
}

/** One route of a memory server, as recorded when it was registered. */
export interface MemoryRoute {
  method: string;
  url: string;
  /** `undefined`: the route declares no rule, and every request to it is refused. */
  access: RouteAccess | undefined;
}

const RULES: readonly RouteAccess[] = ["public", "user", "service"];

/** The access rule a route's config declares, or `undefined` for none (or an unknown value). */
export function routeAccess(config: unknown): RouteAccess | undefined {
  const c = (config ?? {}) as { access?: unknown; public?: unknown };
  if (RULES.includes(c.access as RouteAccess)) return c.access as RouteAccess;
  if (c.public === true && c.access === undefined) return "public";
  return undefined;
}

/** Records every route registered from now on (on this instance and its plugins) in `app.memoryRoutes`. */
export function recordRoutes(app: FastifyInstance): void {
  const routes: MemoryRoute[] = [];
  app.decorate("memoryRoutes", routes);
  app.addHook("onRoute", (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({ method, url: route.url ?? route.path, access: routeAccess(route.config) });
    }
  });
}

/** The matched route's rule, or an `AccessRuleMissingError` naming the route. */
export function requireRule(request: FastifyRequest): RouteAccess {
  const access = routeAccess(request.routeOptions.config);
  if (access === undefined) {
    throw new AccessRuleMissingError(
      `route ${request.method} ${request.routeOptions.url} declares no access rule (config.access: "public", "user" or "service"), so it is closed`,
    );
  }
  return access;
}

/** Refuses an end user on a `"service"` route. */
export function checkRule(request: FastifyRequest, access: RouteAccess, scope: RequestScope): void {
  if (access === "service" && scope.kind === "user") {
    throw new ForbiddenError(`route ${request.method} ${request.routeOptions.url} is for services (an API key), not for end users`);
  }
}
