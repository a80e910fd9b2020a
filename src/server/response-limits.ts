import type { FastifyInstance } from "fastify";
import type { ListNamespacesOperation, Operation, SearchOperation } from "@langchain/langgraph-checkpoint";
import { ResponseTooLargeError } from "../errors.js";
import { operationKind } from "../store/remote/wire.js";

/**
 * The most results `operations` can return: each search's and namespace
 * list's `limit`, plus one per get. Refuses the batch before the store runs
 * when that is more than `max`.
 *
 * @throws {ResponseTooLargeError} (413) naming the total and the maximum.
 */
export function checkResultBudget(operations: Operation[], max: number): void {
  let total = 0;
  for (const op of operations) {
    const kind = operationKind(op);
    if (kind === "get") total += 1;
    else if (kind === "search") total += (op as SearchOperation).limit ?? 10;
    else if (kind === "list_namespaces") total += (op as ListNamespacesOperation).limit ?? 100;
  }
  if (total > max) {
    throw new ResponseTooLargeError(
      `this request could return ${total} results (its searches' and lists' limits added up), more than this server's maximum ${max} (maxResultsPerRequest); ask for fewer or page with offset`,
    );
  }
}

/** Replaces any response body larger than `maxBytes` with a `ResponseTooLargeError` (413). */
export function installResponseLimit(app: FastifyInstance, maxBytes: number): void {
  app.addHook("onSend", async (request, reply, payload) => {
    const size = typeof payload === "string" ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0;
    if (size <= maxBytes) return payload;
    const message = `the answer to ${request.method} ${request.routeOptions.url ?? request.url} is ${size} bytes, more than this server's maximum ${maxBytes} (maxResponseBytes); ask for fewer results or page with offset`;
    request.log.warn({ size, maxBytes }, "response too large");
    reply.code(413).type("application/json; charset=utf-8");
    return JSON.stringify({ error: "ResponseTooLargeError", message, statusCode: 413 });
  });
}
