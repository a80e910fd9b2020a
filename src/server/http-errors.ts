import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorToWire, type WireError } from "../store/remote/wire.js";
import { MAX_ID_LENGTH } from "./memory-routes.js";
import { errorLogFields, type RequestLogSettings } from "./request-log.js";
import { API_CSP, applySecurityHeaders, SECURITY_HEADERS } from "./security-headers.js";

/**
 * Fastify's `frameworkErrors`: a URL that cannot be decoded, or a path
 * parameter longer than the router's limit, gets the same body as every
 * other refusal (these bypass the hooks, so the security headers are set here).
 */
/**
 * Fastify's `clientErrorHandler`: requests Node cannot parse (headers over
 * its size limit, a client too slow to send its request, garbage) get the
 * same body shape and the security headers, before the connection closes.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [statusCode, message] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "the client took longer than the server's requestTimeout to send its request"]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "the request's headers are larger than the server accepts"]
        : [400, `the request could not be parsed as HTTP (${error.code ?? error.message})`];
  const body = JSON.stringify({ error: "InvalidArgumentError", message, statusCode } satisfies WireError);
  const headers = Object.entries({ ...SECURITY_HEADERS, "content-security-policy": API_CSP })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === "FST_ERR_MAX_PARAM_LENGTH" ? `a path parameter is longer than this server accepts (ids are at most ${MAX_ID_LENGTH} characters)` : error.message;
  applySecurityHeaders(reply);
  reply.code(400).send({ error: "InvalidArgumentError", message, statusCode: 400 } satisfies WireError);
}

/**
 * Every failure becomes a JSON body `{ error, message, statusCode }` whose
 * `error` names the problem (`InvalidNamespaceError`, `StoreLockedError`, …):
 * schema violations and unparsable JSON are `InvalidArgumentError` (400),
 * an oversized body `PayloadTooLargeError` (413), store errors keep their
 * names (locked, closed, corrupt → 503), unknown routes `NotFoundError`.
 */
export function installErrorHandling(app: FastifyInstance, settings: RequestLogSettings = {}): void {
  const logValues = settings.logValues === true;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let body: WireError;
    if (error.validation) {
      body = { error: "InvalidArgumentError", message: error.message, statusCode: 400 };
    } else if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      body = { error: "PayloadTooLargeError", message: `request body is larger than the server's limit: ${error.message}`, statusCode: 413 };
    } else if (error.code?.startsWith("FST_") && typeof error.statusCode === "number" && error.statusCode < 500) {
      body = { error: "InvalidArgumentError", message: error.message, statusCode: error.statusCode };
    } else {
      body = errorToWire(error);
    }
    const fields = errorLogFields(error, body.error, body.statusCode, request, logValues);
    if (body.statusCode >= 500) request.log.error(fields, "request failed");
    else request.log.info(fields, "request refused");
    return reply.code(body.statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: "NotFoundError", message: `no route ${request.method} ${request.url}`, statusCode: 404 } satisfies WireError),
  );
}
