import { checkFunction, checkNumber, checkObject, checkString } from "../../option-checks.js";
import type { Operation, OperationResults } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, RemoteStoreError } from "../../errors.js";
import { MemoryStoreBase } from "../memory-store-base.js";
import { validateValue } from "../validate-value.js";
import { errorFromWire, itemFromWire, operationKind, operationToWire, type WireItem, type WireResult } from "./wire.js";

/** Options for {@link RemoteStore}. */
export interface RemoteStoreOptions {
  /** Base URL of a memory server, e.g. `http://127.0.0.1:8787`. */
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
 * `StoreLockedError`, …) are rebuilt here as the same classes; anything else,
 * and an unreachable server, is a `RemoteStoreError` with the HTTP status
 * (0 when unreachable). Requests are not retried.
 *
 * **Per-call options.** A put's `ttl` and a get's or search's `refreshTtl`
 * travel to the server (`ttl`, `refresh_ttl`), which hands them to its
 * store; they take effect when that store has TTL (`ttl` option).
 */
export class RemoteStore extends MemoryStoreBase {
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: RemoteStoreOptions) {
    super();
    if (typeof options?.url !== "string") throw new InvalidArgumentError(`RemoteStore needs a url, got ${JSON.stringify(options?.url)}`);
    try {
      new URL(options.url);
    } catch {
      throw new InvalidArgumentError(`RemoteStore url ${JSON.stringify(options.url)} is not a valid URL`);
    }
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
    const body = await this.request("/store/batch", { operations: operations.map(operationToWire) });
    const results = (body as { results: WireResult[] }).results;
    if (!Array.isArray(results) || results.length !== operations.length) {
      throw new RemoteStoreError(`memory server answered ${results?.length} results for ${operations.length} operations`, 200);
    }
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

  private async request(path: string, payload: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.url}${path}`, {
        method: "POST",
        headers: this.headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new RemoteStoreError(`memory server at ${this.url} could not be reached: ${(e as Error).message}`, 0);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = { message: text };
    }
    if (!res.ok) throw errorFromWire(res.status, body);
    return body;
  }
}
