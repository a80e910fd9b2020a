import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { openOrCreateStore, removeCreatedStore, storeDir } from "../open-store.js";
import { keepRunningOnClosedPipe } from "../closed-pipe.js";
import { readLayoutFile } from "../layout-file.js";
import { readableLogStream } from "../log-lines.js";
import { intOption, globals } from "./globals.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * `serve`: the memory server (LangGraph's store API, the /v1 memory
 * endpoints, `/store/batch` for `RemoteStore`) and the web inspector at `/`,
 * over one store directory. With `--api-key` (or `$LANGGRAPH_MEMORY_API_KEY`)
 * callers send it as `x-api-key` (the inspector asks for it in its key field);
 * `--auth MODULE` adds an `authenticate(request) → { identity } | null` hook
 * for end users. Without either, only loopback addresses are allowed and
 * every loopback caller has full access. A new or empty directory becomes
 * a store with the local embedder (or `--embeddings`); a directory holding
 * other files is refused. The first line printed is `listening on <url>`.
 * SIGTERM/SIGINT stop it gracefully (a line on stderr, exit code 0; 1 when
 * closing failed; a second signal exits at once with 130).
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0: any free port)", "8787")
    .option("--api-key <key>", "key for trusted services, sent as x-api-key (default: $LANGGRAPH_MEMORY_API_KEY)")
    .option("--auth <module>", "a module whose default export (or `authenticate`) maps a request to { identity } or null")
    .option("--embeddings <name>", "embedder for search by meaning (default: the directory's own when known)")
    .option("--log [format]", "request log on stderr: readable lines (text, the default) or pino JSON (json)")
    .option("--layout <file>", "a JSON memory layout: where a person's memory lives (default: facts users.<id>, episodes episodes.<id>, learned instructions)")
    .description("serve the memory API and the web inspector (a new or empty directory becomes a store); Ctrl-C stops it")
    .action(async (o: { host: string; port: string; apiKey?: string; auth?: string; embeddings?: string; log?: boolean | string; layout?: string }, cmd: Command) => {
      const g = globals(cmd);
      if (typeof o.log === "string" && o.log !== "text" && o.log !== "json") throw new CliError(`--log must be text or json, got ${JSON.stringify(o.log)}`);
      const dir = storeDir(g.path);
      const port = intOption(o.port, "--port", 0);
      const apiKey = o.apiKey ?? process.env.LANGGRAPH_MEMORY_API_KEY;
      if (!apiKey && !o.auth && !LOOPBACK.has(o.host)) {
        throw new CliError(`serving on ${o.host} (not loopback) needs --api-key, $LANGGRAPH_MEMORY_API_KEY or --auth`);
      }
      const authenticate = o.auth ? await loadAuth(o.auth) : undefined;
      const layout = readLayoutFile(o.layout);
      const { store, created, state, embedder, note } = await openOrCreateStore(dir, o.embeddings);
      if (note) process.stderr.write(`note: ${note}\n`);
      if (created) process.stderr.write(`created a new store in ${dir} (embedder ${embedder!.identity})\n`);
      const [{ startMemoryServer }, { inspectorPlugin }] = await Promise.all([import("../../server/index.js"), import("../../server/inspector/plugin.js")]);
      const server = await startMemoryServer({
        store,
        apiKey,
        authenticate,
        allowUnauthenticated: !apiKey && !authenticate,
        host: o.host,
        port,
        handleSignals: false,
        logger: o.log ? { level: "info", stream: o.log === "json" ? process.stderr : readableLogStream(process.stderr) } : false,
        layout,
        plugins: [async (app) => app.register(inspectorPlugin, { store, layout, title: `langgraph-memory · ${dir}` })],
      }).catch(async (err: unknown) => {
        // Not serving (a port in use, …): release the directory, and take back a store made for this run.
        await store.close();
        if (created && state !== "existing") removeCreatedStore(dir, state);
        throw err;
      });
      keepRunningOnClosedPipe();
      stopOnSignals(server.close);
      const url = server.url.replace("[::1]", "localhost");
      if (g.json) process.stdout.write(JSON.stringify({ url }) + "\n");
      else process.stdout.write(`listening on ${url}\ninspector at ${url}/${apiKey ? " (enter the API key in its key field)" : ""} (Ctrl-C to stop)\n`);
    });
}

/** SIGTERM/SIGINT: say so, close gracefully (in-flight requests, then the store), exit 0 (1 if closing failed); a second signal exits at once. */
function stopOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting at once (the store's log keeps every acknowledged write)\n`);
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`${signal} received: closing the server (finishing in-flight requests, then closing the store)…\n`);
    close().then(
      () => {
        process.stderr.write("closed; bye\n");
        process.exit(0);
      },
      (err: Error) => {
        process.stderr.write(`error: closing failed: ${err.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

async function loadAuth(spec: string): Promise<(request: unknown) => Promise<{ identity: string } | null>> {
  const { pathToFileURL } = await import("node:url");
  const path = await import("node:path");
  let mod: { default?: unknown; authenticate?: unknown };
  try {
    mod = await import(pathToFileURL(path.resolve(spec)).href);
  } catch (err) {
    throw new CliError(`cannot load the auth module ${spec}: ${(err as Error).message}`);
  }
  const fn = mod.authenticate ?? mod.default;
  if (typeof fn !== "function") throw new CliError(`the auth module ${spec} exports no authenticate function (default export or \`authenticate\`)`);
  return async (request) => (await fn(request)) ?? null;
}
