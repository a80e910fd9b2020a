import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { embedderForDirectory, openStore, requireStore, storeDir } from "../open-store.js";
import { intOption, globals } from "./globals.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * `serve`: the inspector over HTTP. A minimal Fastify app of its own for now
 * (on merge this is re-pointed at the library's `startMemoryServer`, which
 * adds the memory API and its authentication). With an API key, the JSON
 * routes need `Authorization: Bearer <key>` (the page sends it when opened
 * as `/#key=<key>`); without one, only loopback addresses are allowed.
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0: any free port)", "8765")
    .option("--api-key <key>", "require this bearer key (default: $LANGGRAPH_MEMORY_API_KEY)")
    .option("--embeddings <name>", "embedder for search by meaning (default: the directory's own when known)")
    .description("serve the web inspector (and print its URL); Ctrl-C stops it")
    .action(async (o: { host: string; port: string; apiKey?: string; embeddings?: string }, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      requireStore(dir);
      const port = intOption(o.port, "--port", 0);
      const apiKey = o.apiKey ?? process.env.LANGGRAPH_MEMORY_API_KEY;
      if (!apiKey && !LOOPBACK.has(o.host)) throw new CliError(`serving on ${o.host} (not loopback) needs --api-key or LANGGRAPH_MEMORY_API_KEY`);
      const { embedder, note } = await embedderForDirectory(dir, o.embeddings);
      if (note) process.stderr.write(`note: ${note}\n`);
      const store = await openStore(dir, { embedder });
      const [{ default: Fastify }, { inspectorPlugin }] = await Promise.all([import("fastify"), import("../../server/inspector/plugin.js")]);
      const app = Fastify();
      if (apiKey) {
        app.addHook("onRequest", async (req, reply) => {
          if (req.url === "/" || req.url.startsWith("/?")) return;
          if (req.headers.authorization !== `Bearer ${apiKey}`) return reply.code(401).send({ error: "Unauthorized", message: "missing or wrong bearer key" });
        });
      }
      await app.register(inspectorPlugin, { store, title: `langgraph-memory · ${dir}` });
      const address = await app.listen({ host: o.host, port });
      const url = address.replace("[::1]", "localhost");
      if (g.json) process.stdout.write(JSON.stringify({ url }) + "\n");
      else process.stdout.write(`inspector at ${url}/${apiKey ? "#key=<your key>" : ""} (Ctrl-C to stop)\n`);
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        await app.close();
        await store.close();
        process.exit(0);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
}
