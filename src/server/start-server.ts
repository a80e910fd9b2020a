import { InvalidArgumentError } from "../errors.js";
import { checkOptions, pickKnown } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { isLoopback } from "./auth.js";
import { createMemoryServer } from "./create-server.js";
import { LOOPBACK_HOSTS } from "./host-guard.js";
import type { MemoryServerOptions, StartMemoryServerOptions } from "./options.js";

/** A running memory server. */
export interface RunningMemoryServer {
  /** e.g. `http://127.0.0.1:8787` */
  url: string;
  /** Stops accepting, finishes in-flight requests, closes the store. Idempotent. */
  close(): Promise<void>;
}

/**
 * Builds the server (see `createMemoryServer`), listens, and (unless
 * `handleSignals: false`) closes gracefully on SIGTERM/SIGINT, then exits.
 *
 * @example
 * ```ts
 * const server = await startMemoryServer({ store, apiKey: process.env.MEMORY_API_KEY, port: 8787 });
 * console.log(`listening on ${server.url}`);
 * ```
 */
export async function startMemoryServer(options: StartMemoryServerOptions): Promise<RunningMemoryServer> {
  checkOptions(options, "startMemoryServer options", OPTION_KEYS.startMemoryServer, { optional: false });
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError(`port must be an integer from 0 to 65535, got ${JSON.stringify(port)}`);
  if (options.allowUnauthenticated && !options.apiKey && !options.authenticate && !isLoopback(host)) {
    throw new InvalidArgumentError(`a server without auth listens on loopback only, not on ${JSON.stringify(host)}`);
  }
  // The address it listens on is a name it answers to (e.g. 127.0.0.2), besides the loopback defaults.
  const listenName = host.includes(":") ? `[${host}]` : host;
  const allowedHosts = options.allowedHosts ?? (LOOPBACK_HOSTS.includes(listenName) ? undefined : [...LOOPBACK_HOSTS, listenName]);
  const app = createMemoryServer(pickKnown({ ...options, allowedHosts }, OPTION_KEYS.memoryServer) as MemoryServerOptions);
  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`;

  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    app.log.info({ signal }, "shutting down");
    close().then(
      () => process.exit(0),
      (e) => {
        app.log.error({ err: e }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  const close = () => {
    closing ??= (async () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      await app.close();
    })();
    return closing;
  };
  if (options.handleSignals !== false) {
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  return { url, close };
}
