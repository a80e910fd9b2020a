import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import type { MemoryServerOptions } from "./options.js";
import { makeScope } from "./scope.js";

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback addresses. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1" || address === "localhost";
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Installs the auth hook on the root instance, so that it applies to every
 * route and plugin registered after it (routes whose config has
 * `public: true`, the health check, are skipped). Order: a matching
 * `x-api-key` → a trusted service; else `authenticate` → an end user; else,
 * with `allowUnauthenticated` and from loopback, open access (or the end
 * user `anonymous` when auth is configured); else 401.
 */
export function installAuth(app: FastifyInstance, options: MemoryServerOptions): void {
  const keys = (Array.isArray(options.apiKey) ? options.apiKey : options.apiKey ? [options.apiKey] : []).map(digest);
  const usersLabel = options.usersLabel ?? "users";
  const authConfigured = keys.length > 0 || options.authenticate !== undefined;

  app.decorateRequest("memoryScope", null);
  app.addHook("onRequest", async (request: FastifyRequest) => {
    if ((request.routeOptions.config as { public?: boolean } | undefined)?.public) return;
    const header = request.headers["x-api-key"];
    const given = typeof header === "string" ? digest(header) : undefined;
    if (given && keys.some((k) => timingSafeEqual(k, given))) {
      request.memoryScope = makeScope("service", usersLabel);
      return;
    }
    if (options.authenticate) {
      const user = await options.authenticate(request);
      if (user) {
        if (typeof user.identity !== "string" || user.identity === "") {
          throw new UnauthorizedError(`authenticate returned no usable identity: ${JSON.stringify(user.identity)}`);
        }
        request.memoryScope = makeScope("user", usersLabel, user.identity);
        return;
      }
    }
    if (given && keys.length > 0 && !options.authenticate) throw new UnauthorizedError("the x-api-key header does not match any key of this server");
    if (!options.allowUnauthenticated) throw new UnauthorizedError("this server needs credentials: an x-api-key header or what its authenticate hook accepts");
    if (!isLoopback(request.socket.remoteAddress)) {
      throw new ForbiddenError(`unauthenticated requests are accepted from loopback only, not from ${request.socket.remoteAddress}`);
    }
    request.memoryScope = authConfigured ? makeScope("user", usersLabel, "anonymous") : makeScope("open", usersLabel);
  });
}
