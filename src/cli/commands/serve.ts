import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { embedderForDirectory, openStore, requireStore, storeDir } from "../open-store.js";
import { intOption, globals } from "./globals.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * `serve`: the memory server (LangGraph's store API, the /v1 memory
 * endpoints, `/store/batch` for `RemoteStore`) and the web inspector at `/`,
 * over one store directory. With `--api-key` (or `$LANGGRAPH_MEMORY_API_KEY`)
 * callers send it as `x-api-key` (the inspector asks for it in its key field);
 * `--auth MODULE` adds an `authenticate(request) → { identity } | null` hook
 * for end users. Without either, only loopback addresses are allowed and
 * every loopback caller has full access. The first line printed is
 * `listening on <url>`; SIGTERM/SIGINT stop it gracefully.
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0: any free port)", "8787")
    .option("--api-key <key>", "key for trusted services, sent as x-api-key (default: $LANGGRAPH_MEMORY_API_KEY)")
    .option("--auth <module>", "a module whose default export (or `authenticate`) maps a request to { identity } or null")
    .option("--embeddings <name>", "embedder for search by meaning (default: the directory's own when known)")
    .option("--log", "structured request log on stderr")
    .description("serve the memory API and the web inspector; Ctrl-C stops it")
    .action(async (o: { host: string; port: string; apiKey?: string; auth?: string; embeddings?: string; log?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      requireStore(dir);
      const port = intOption(o.port, "--port", 0);
      const apiKey = o.apiKey ?? process.env.LANGGRAPH_MEMORY_API_KEY;
      if (!apiKey && !o.auth && !LOOPBACK.has(o.host)) {
        throw new CliError(`serving on ${o.host} (not loopback) needs --api-key, $LANGGRAPH_MEMORY_API_KEY or --auth`);
      }
      const authenticate = o.auth ? await loadAuth(o.auth) : undefined;
      const { embedder, note } = await embedderForDirectory(dir, o.embeddings);
      if (note) process.stderr.write(`note: ${note}\n`);
      const store = await openStore(dir, { embedder });
      const [{ startMemoryServer }, { inspectorPlugin }] = await Promise.all([import("../../server/index.js"), import("../../server/inspector/plugin.js")]);
      const server = await startMemoryServer({
        store,
        apiKey,
        authenticate,
        allowUnauthenticated: !apiKey && !authenticate,
        host: o.host,
        port,
        logger: o.log ? { level: "info", stream: process.stderr } : false,
        plugins: [async (app) => app.register(inspectorPlugin, { store, title: `langgraph-memory · ${dir}` })],
      });
      const url = server.url.replace("[::1]", "localhost");
      if (g.json) process.stdout.write(JSON.stringify({ url }) + "\n");
      else process.stdout.write(`listening on ${url}\ninspector at ${url}/${apiKey ? " (enter the API key in its key field)" : ""} (Ctrl-C to stop)\n`);
    });
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
