import type { FastifyRequest } from "fastify";
import { HostNotAllowedError, InvalidArgumentError } from "../errors.js";

/** The `Host` names a server without credentials answers by default (with the port it listens on). */
export const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/** Splits a Host header value into a lower-case name (IPv6 kept in brackets) and a port. */
function parseHost(value: string): { name: string; port?: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return undefined;
  return { name: m[1].toLowerCase(), port: m[2] === undefined ? undefined : Number(m[2]) };
}

/**
 * True when `host` (a `Host` header value) is allowed: its name is in
 * `allowed` and its port is the one the request arrived on (an entry
 * `"name:port"` names the port itself; a Host without a port means 80).
 * When the local port is unknown (an injected request), any port matches.
 */
export function hostAllowed(host: string | undefined, allowed: readonly string[], localPort: number | undefined): boolean {
  if (!host) return false;
  const given = parseHost(host);
  if (!given) return false;
  const port = given.port ?? 80;
  return allowed.some((entry) => {
    const rule = parseHost(entry);
    if (!rule || rule.name !== given.name) return false;
    if (rule.port !== undefined) return rule.port === port;
    return localPort === undefined || localPort === port;
  });
}

/**
 * The DNS-rebinding guard: a page on another origin whose name resolves to
 * 127.0.0.1 reaches a loopback server with its own name in `Host`. A server
 * that serves requests without credentials answers only the names it knows.
 *
 * @throws {HostNotAllowedError} (HTTP 421) naming the host and the allowed ones.
 */
export function checkHost(request: FastifyRequest, allowed: readonly string[]): void {
  const host = request.headers.host;
  if (hostAllowed(host, allowed, request.socket?.localPort)) return;
  throw new HostNotAllowedError(
    `Host ${JSON.stringify(host ?? "")} is not one this server answers without credentials (allowed: ${allowed.join(", ")}, on port ${request.socket?.localPort ?? "any"}); ` +
      "open it as http://127.0.0.1:<port>/, or add the name to allowedHosts",
  );
}

/**
 * HTTP/1.1 requires exactly one `Host` header (RFC 9112 §3.2: a request
 * without one, or with several, is answered 400). Node would answer a
 * request without `Host` itself, with an empty body and none of the
 * server's headers, and keep the first of two; the server turns that check
 * off (`requireHostHeader: false`) and makes it here, so the refusal is the
 * server's own error with its headers.
 *
 * @throws {InvalidArgumentError} (HTTP 400) saying how many it carried.
 */
export function checkOneHost(request: FastifyRequest): void {
  const raw = request.raw.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === "host") hosts++;
  // An HTTP/2 request names its authority in `:authority`, which Node maps to `host`.
  if (hosts === 0 && request.raw.httpVersionMajor === 2 && request.headers.host) hosts = 1;
  if (hosts !== 1) throw new InvalidArgumentError(`a request must carry exactly one Host header; this one carried ${hosts}`);
}
