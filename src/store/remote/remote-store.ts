import { checkFunction, checkKnownKeys, checkNumber, checkObject, checkString } from "../../option-checks.js";
import { OPTION_KEYS } from "../../option-keys.js";
import type { Operation, OperationResults } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, RemoteStoreError } from "../../errors.js";
import { MemoryStoreBase } from "../memory-store-base.js";
import { validateValue } from "../validate-value.js";
import { redactUrl, urlHasCredentials } from "../redact-url.js";
import { checkBatchAnswer } from "./answer.js";
import { errorFromWire, itemFromWire, operationKind, operationToWire, type WireItem, type WireResult } from "./wire.js";

/** Options for {@link RemoteStore}. */
export interface RemoteStoreOptions {
  /**
   * Base URL of a memory server, e.g. `http://127.0.0.1:8787`: `http:` or
   * `https:`, without a user name or password (pass the key as `apiKey`).
   */
  url: string;
  /**
   * Sent as the `x-api-key` header (the header LangGraph's SDK uses): a
   * trusted service's key, with access to every namespace.
   * @default undefined
   */
  apiKey?: string;
  /**
   * Extra headers on every request, e.g. `{ authorization: "Bearer …" }` for
   * an end user whom the server's `authenticate` hook recognises.
   * @default {}
   */
  headers?: Record<string, string>;
  /**
   * Milliseconds before a request is abandoned (it fails with `RemoteStoreError`).
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * The fetch implementation.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
}

/**
 * A LangGraph `BaseStore` that talks to a memory server (see
 * `createMemoryServer` in `langgraph-hnsw-memory/server`), so that any number
 * of processes share one `HNSWStore`.
 *
 * @example
 * ```ts
 * import { RemoteStore } from "langgraph-hnsw-memory/remote";
 * const store = new RemoteStore({ url: "http://127.0.0.1:8787", apiKey: process.env.MEMORY_API_KEY });
 * const graph = builder.compile({ checkpointer, store });
 * ```
 *
 * **Batches.** Each `batch()` is one HTTP request (`POST /store/batch`); the
 * server runs its operations in order as one batch of the underlying store,
 * so a get or search after a put in the same batch sees the put.
 *
 * **Errors.** The server's named errors (`InvalidNamespaceError`,
 * `StoreLockedError`, …) are rebuilt here as the same classes. Everything
 * else is a `RemoteStoreError` with the HTTP status (0 when no answer came),
 * the underlying failure as `cause`, and `mayHaveApplied`: an unreachable
 * server or a request fetch refused to send (a blocked port such as 1) is
 * `false`; a timeout, a connection lost mid-answer
 * or a malformed answer to a batch with writes is `true` ("the writes may
 * have been applied"). Answers are checked against the shapes they must
 * have (items with valid timestamps), so a bad server is never trusted.
 * Requests are not retried.
 *
 * **Per-call options.** A put's `ttl`, a get's or search's `refreshTtl` and a
 * search's `retrieval` travel to the server (`ttl`, `refresh_ttl`,
 * `retrieval`), which hands them to its store; TTLs take effect when that
 * store has TTL (`ttl` option). A memory server from a release before
 * `retrieval` existed refuses a search that sets it (400), so update the
 * server first.
 */
export class RemoteStore extends MemoryStoreBase {
  /** Puts with `ifValue` are sent on; the server's store checks them (a server whose store cannot refuses the batch). */
  readonly conditionalPuts = true;
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: RemoteStoreOptions) {
    super();
    if (typeof options?.url !== "string") throw new InvalidArgumentError(`RemoteStore needs a url, got ${JSON.stringify(options?.url)}`);
    let protocol: string;
    try {
      protocol = new URL(options.url).protocol;
    } catch {
      throw new InvalidArgumentError(`RemoteStore url ${JSON.stringify(redactUrl(options.url))} is not a valid URL`);
    }
    if (protocol !== "http:" && protocol !== "https:") throw new InvalidArgumentError(`RemoteStore url must be http: or https:, got ${JSON.stringify(protocol)}`);
    if (urlHasCredentials(options.url)) {
      throw new InvalidArgumentError(
        `RemoteStore url ${JSON.stringify(redactUrl(options.url))} carries a user name or password; fetch refuses such URLs and they would show in every error. Pass the key as apiKey (or in headers)`,
      );
    }
    checkKnownKeys(options, OPTION_KEYS.remoteStore);
    checkString(options.apiKey, "apiKey");
    checkObject(options.headers, "headers");
    for (const [k, v] of Object.entries(options.headers ?? {})) checkString(v, `headers.${k}`, true);
    // AbortSignal.timeout needs a positive whole number of milliseconds up to 2^31-1.
    checkNumber(options.timeoutMs, "timeoutMs", { min: 1, integer: true, max: 2 ** 31 - 1 });
    checkFunction(options.fetch, "fetch");
    this.url = options.url.replace(/\/+$/, "");
    this.headers = { "content-type": "application/json", ...options.headers };
    if (options.apiKey) this.headers["x-api-key"] = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (!Array.isArray(operations)) throw new InvalidArgumentError("batch() takes an array of operations");
    if (operations.length === 0) return [] as OperationResults<Op>;
    const kinds = operations.map((op, i) => {
      if (op === null || typeof op !== "object") throw new InvalidArgumentError(`operation ${i} is not an object`);
      const kind = operationKind(op);
      // Checked here too: JSON would silently turn a Date into a string and NaN into null.
      const value = (op as { value?: unknown }).value;
      if (kind === "put" && value !== null) validateValue(value, `operation ${i} (put)`);
      return kind;
    });
    const writes = kinds.includes("put");
    const { body, status } = await this.request("/store/batch", { operations: operations.map(operationToWire) }, writes);
    const results = checkBatchAnswer(body, kinds, { url: redactUrl(this.url), status, writes }) as WireResult[];
    return results.map((r, i) => {
      switch (kinds[i]) {
        case "get":
          return r === null ? null : itemFromWire(r as WireItem);
        case "put":
          return undefined;
        case "search":
          return (r as WireItem[]).map(itemFromWire);
        default:
          return r;
      }
    }) as OperationResults<Op>;
  }

  /** True when the server answers its health check. */
  async ping(): Promise<boolean> {
    try {
      const res = await this.fetchImpl(`${this.url}/ok`, { headers: this.headers, signal: AbortSignal.timeout(this.timeoutMs) });
      return res.ok;
    } catch {
      return false;
    }
  }

  /**
   * One POST. Every failure is a `RemoteStoreError` with its `cause`; it says
   * whether a batch with writes may have been applied (it reached the
   * server, but no complete answer came back) or surely was not.
   */
  private async request(path: string, payload: unknown, writes: boolean): Promise<{ body: unknown; status: number }> {
    const where = `memory server at ${redactUrl(this.url)}`;
    const maybe = writes ? "; the writes of this batch may have been applied" : "";
    const fail = (message: string, status: number, cause: unknown, mayHaveApplied: boolean) =>
      new RemoteStoreError(message, status, undefined, { cause, mayHaveApplied });
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.url}${path}`, {
        method: "POST",
        headers: this.headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      if (isTimeout(e)) throw fail(`${where} timed out after ${this.timeoutMs} ms with no answer${maybe}`, 0, e, writes);
      if (neverConnected(e)) throw fail(`${where} could not be reached (${describe(e)}); nothing was sent`, 0, e, false);
      throw fail(`${where} closed the connection before answering (${describe(e)})${maybe}`, 0, e, writes);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      const done = res.ok ? `; it had answered ${res.status}, so the batch was applied` : maybe;
      const how = isTimeout(e) ? `timed out after ${this.timeoutMs} ms while sending its answer` : `broke off its answer (${describe(e)})`;
      throw fail(`${where} ${how}${done}`, res.status, e, writes);
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch (e) {
      if (res.ok) throw fail(`${where} answered ${res.status} with a body that is not JSON (${JSON.stringify(text.slice(0, 80))})${maybe}`, res.status, e, writes);
      body = { message: text.slice(0, 500) };
    }
    if (!res.ok) throw errorFromWire(res.status, body);
    return { body, status: res.status };
  }
}

const isTimeout = (e: unknown) => (e as Error)?.name === "TimeoutError" || (e as Error)?.name === "AbortError";

/** The codes of failures that happen before a connection exists (so nothing reached the server). */
const NEVER_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ERR_INVALID_URL", "ERR_INVALID_ARG_TYPE", "ERR_INVALID_ARG_VALUE"]);

/**
 * Refusals of fetch itself, before any byte is sent: a port the Fetch
 * standard blocks (`bad port`: 1, 9, 25, …), a URL fetch will not build a
 * request from, a request it cannot construct.
 */
const NEVER_SENT_MESSAGES = [/^bad port$/i, /^Request cannot be constructed/i, /^Failed to parse URL/i, /^Invalid URL/i, /^URL scheme must be/i, /^unknown scheme$/i];

function neverConnected(e: unknown): boolean {
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && NEVER_CONNECTED.has(code)) return true;
    const message = (c as { message?: unknown }).message;
    if (typeof message === "string" && NEVER_SENT_MESSAGES.some((m) => m.test(message))) return true;
    const errors = (c as { errors?: unknown[] }).errors; // AggregateError of a dual-stack connect
    if (Array.isArray(errors) && errors.length > 0 && errors.every((x) => NEVER_CONNECTED.has(String((x as { code?: unknown }).code)))) return true;
  }
  return false;
}

function describe(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, i = 0; c && i < 4; c = (c as { cause?: unknown }).cause, i++) {
    const err = c as { message?: string; code?: string };
    const text = [err.code, err.message].filter(Boolean).join(" ");
    if (text && !parts.includes(text)) parts.push(text);
  }
  return parts.join(": ") || String(e);
}
