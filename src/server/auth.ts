import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import { checkRule, recordRoutes, requireRule } from "./access.js";
import { checkHost, LOOPBACK_HOSTS } from "./host-guard.js";
import type { MemoryServerOptions } from "./options.js";
import { makeScope, type RequestScope } from "./scope.js";

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback addresses. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1" || address === "localhost";
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Installs the auth hook on the root instance, so that it applies to every
 * route and plugin registered after it, and records the route table.
 *
 * Per request: a server without credentials first checks the `Host` header
 * (`allowedHosts`). Then the rule of the route Fastify matched
 * (`config.access`, see `RouteAccess`) decides: none declared → refused;
 * `"public"` → served. Otherwise the caller is resolved: a matching
 * `x-api-key` → a trusted service; else `authenticate` → an end user; a
 * wrong key → 401; else, with `allowUnauthenticated` and from loopback (and
 * an allowed `Host`), open access (or the end user `anonymous` when auth is
 * configured); else 401. An end user on a `"service"` route → 403.
 */
export function installAuth(app: FastifyInstance, options: MemoryServerOptions): void {
  const keys = (Array.isArray(options.apiKey) ? options.apiKey : options.apiKey ? [options.apiKey] : []).map(digest);
  const usersLabel = options.usersLabel ?? "users";
  const authConfigured = keys.length > 0 || options.authenticate !== undefined;
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;

  const resolve = async (request: FastifyRequest): Promise<RequestScope> => {
    const header = request.headers["x-api-key"];
    const given = typeof header === "string" ? digest(header) : undefined;
    if (given && keys.some((k) => timingSafeEqual(k, given))) return makeScope("service", usersLabel);
    if (options.authenticate) {
      const user = await options.authenticate(request);
      if (user) {
        if (typeof user.identity !== "string" || user.identity === "") {
          throw new UnauthorizedError(`authenticate returned no usable identity: ${JSON.stringify(user.identity)}`);
        }
        return makeScope("user", usersLabel, user.identity);
      }
    }
    if (header !== undefined) throw new UnauthorizedError("the x-api-key header does not match any key of this server");
    if (!options.allowUnauthenticated) throw new UnauthorizedError("this server needs credentials: an x-api-key header or what its authenticate hook accepts");
    if (!isLoopback(request.socket.remoteAddress)) {
      throw new ForbiddenError(`unauthenticated requests are accepted from loopback only, not from ${request.socket.remoteAddress}`);
    }
    if (authConfigured) checkHost(request, allowedHosts);
    return authConfigured ? makeScope("user", usersLabel, "anonymous") : makeScope("open", usersLabel);
  };

  recordRoutes(app);
  app.decorateRequest("memoryScope", null);
  app.addHook("onRequest", async (request: FastifyRequest) => {
    if (!authConfigured) checkHost(request, allowedHosts); // every request of a keyless server, pages and 404s too
    if (request.is404) return; // the not-found handler serves nothing
    const access = requireRule(request);
    if (access === "public") return;
    const scope = await resolve(request);
    checkRule(request, access, scope);
    request.memoryScope = scope;
  });
}
