import type { FastifyInstance, FastifyRequest } from "fastify";
import { errorToWire } from "../../store/remote/wire.js";
import { ForbiddenError } from "../../errors.js";
import { requireRule } from "../access.js";
import { isLoopback } from "../auth.js";
import { checkHost } from "../host-guard.js";
import { applySecurityHeaders } from "../security-headers.js";

/**
 * The inspector's own guard, on the plugin's routes only (a plugin-level
 * hook, so it sees the route Fastify matched, however its path was spelled):
 *
 * - behind a memory server (its auth hook has run): the `"service"` routes
 *   refuse end users and anything the auth hook did not let through;
 * - on its own (a bare Fastify app, no auth hook): a keyless local tool —
 *   loopback peers and loopback `Host` names (`allowedHosts`) only.
 *
 * Every answer carries the security headers (no framing, no sniffing, no referrer).
 */
export function installInspectorGuard(app: FastifyInstance, allowedHosts: readonly string[]): void {
  app.addHook("onRequest", async (request, reply) => {
    try {
      check(request);
    } catch (err) {
      // Answered here (not thrown), so that a bare Fastify app without the memory server's error handler sends the same body.
      const body = errorToWire(err);
      return reply.code(body.statusCode).send(body);
    }
  });
  const check = (request: FastifyRequest) => {
    const access = requireRule(request);
    const scope = (request as { memoryScope?: { kind: string } | null }).memoryScope;
    if (scope === undefined) {
      checkHost(request, allowedHosts);
      if (access !== "public" && !isLoopback(request.socket.remoteAddress)) {
        throw new ForbiddenError(`the inspector without a memory server answers loopback only, not ${request.socket.remoteAddress}`);
      }
      return;
    }
    if (access === "service" && (scope === null || scope.kind === "user")) {
      throw new ForbiddenError("the inspector is for services (an API key), not for end users");
    }
  };
  app.addHook("onSend", async (_request, reply, payload) => {
    applySecurityHeaders(reply);
    return payload;
  });
}
