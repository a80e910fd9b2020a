import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";

/**
 * What the memory server writes to its request log. Logs travel to other
 * systems (aggregators, tickets, support chats), so by default a line
 * carries the request id, the method, the ROUTE as declared
 * (`/v1/store/users/:user_id/items/:key`, never the URL: its labels are
 * user ids and its query string carries filter values), the status, the
 * error's class and the response time — never a namespace label, a key, a
 * filter value, a query, a client address or an error message (messages
 * name the offending value). `logValues: true` (an option of
 * `createMemoryServer`) is the operator's explicit opt-in to the URL, the
 * client address and error messages.
 */
export interface RequestLogSettings {
  /** Log URLs, client addresses and error messages too. @default false */
  logValues?: boolean;
}

type LoggerOption = FastifyServerOptions["logger"];

/** The route a request matched, as declared, or `(no route)`. */
const routeOf = (request: FastifyRequest): string => request.routeOptions?.url ?? "(no route)";

/** Pino serializers for `req` and `res` (Fastify logs `incoming request` and `request completed` with them). */
function serializers(logValues: boolean) {
  return {
    req: (request: FastifyRequest) =>
      logValues
        ? { method: request.method, route: routeOf(request), url: request.url, remoteAddress: request.ip }
        : { method: request.method, route: routeOf(request) },
    res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
  };
}

/**
 * Fastify's `logger` option with the serializers above added (the
 * operator's own `serializers` win: they are explicit). `false` stays
 * `false`; `true` or undefined is `{ level: "info" }`.
 */
export function requestLogger(logger: LoggerOption, settings: RequestLogSettings = {}): LoggerOption {
  if (logger === false) return false;
  const base = logger === true || logger === undefined ? { level: "info" } : logger;
  if (typeof base !== "object" || base === null) return base;
  const own = (base as { serializers?: Record<string, unknown> }).serializers;
  return { ...base, serializers: { ...serializers(settings.logValues === true), ...own } } as LoggerOption;
}

/**
 * The fields of a `request refused` / `request failed` line: the error's
 * class, code and status; its message only with `logValues`, and for a
 * failure (5xx) the stack's frames only (its first lines repeat the
 * message).
 */
export function errorLogFields(error: FastifyError, name: string, statusCode: number, request: FastifyRequest, logValues: boolean): Record<string, unknown> {
  const fields: Record<string, unknown> = { error: name, statusCode, route: routeOf(request) };
  if (error.code) fields.code = error.code;
  if (logValues) fields.message = error.message;
  if (statusCode >= 500 && typeof error.stack === "string") fields.stack = error.stack
      .split("\n")
      .filter((line) => /^\s+at /.test(line))
      .join("\n");
  return fields;
}
