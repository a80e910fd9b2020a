import type { FastifyError, FastifyInstance } from "fastify";
import { errorToWire, type WireError } from "../store/remote/wire.js";

/**
 * Every failure becomes a JSON body `{ error, message, statusCode }` whose
 * `error` names the problem (`InvalidNamespaceError`, `StoreLockedError`, …):
 * schema violations and unparsable JSON are `InvalidArgumentError` (400),
 * an oversized body `PayloadTooLargeError` (413), store errors keep their
 * names (locked, closed, corrupt → 503), unknown routes `NotFoundError`.
 */
export function installErrorHandling(app: FastifyInstance): void {
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
    if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
    else request.log.info({ error: body.error, message: body.message }, "request refused");
    return reply.code(body.statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: "NotFoundError", message: `no route ${request.method} ${request.url}`, statusCode: 404 } satisfies WireError),
  );
}
