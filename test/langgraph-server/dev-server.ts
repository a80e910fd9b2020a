/**
 * Starts LangGraph's own JS API server (`langgraphjs dev` from
 * @langchain/langgraph-cli, which spawns @langchain/langgraph-api) on a
 * loopback port, offline: no browser, no LangSmith tracing, no CLI analytics,
 * no file watcher, and a Studio URL that is never contacted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "node_modules/.bin/langgraphjs");
/** The example project the server runs. */
export const EXAMPLE_DIR = path.join(ROOT, "examples/langgraph-server");

/** A free port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Writes `<projectDir>/langgraph.json`: the example's, with its paths made
 * relative to `projectDir`, so the server keeps its own state
 * (`.langgraph_api/`: threads, checkpoints, its store) in that directory and
 * never writes into the repository.
 */
export function writeProject(projectDir: string): void {
  const config = JSON.parse(fs.readFileSync(path.join(EXAMPLE_DIR, "langgraph.json"), "utf8")) as {
    graphs: Record<string, string>;
    auth: { path: string };
    env?: string;
  };
  const rel = (spec: string) => {
    const [file, symbol] = spec.split(":");
    return `${path.relative(projectDir, path.resolve(EXAMPLE_DIR, file))}:${symbol}`;
  };
  const graphs = Object.fromEntries(Object.entries(config.graphs).map(([id, spec]) => [id, rel(spec)]));
  const out = { ...config, graphs, auth: { ...config.auth, path: rel(config.auth.path) } };
  delete out.env; // the test passes its environment itself
  fs.writeFileSync(path.join(projectDir, "langgraph.json"), JSON.stringify(out, null, 2));
  fs.writeFileSync(path.join(projectDir, ".gitignore"), ".langgraph_api\n"); // else the CLI appends to it
}

/** A running `langgraphjs dev`. */
export interface DevServer {
  url: string;
  /** Everything the server printed so far. */
  log(): string;
  /** SIGTERM to the server's process group; resolves when every process of it has exited. */
  stop(): Promise<void>;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean, log: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} within ${timeoutMs} ms; server log:\n${log()}`);
}

/**
 * Starts the server in `projectDir` (see {@link writeProject}) with `env` added to a clean environment.
 * `command` replaces the repository's `langgraphjs` (e.g. a guide's `npx @langchain/langgraph-cli`).
 */
export async function startDevServer(projectDir: string, env: Record<string, string>, command: string[] = [CLI]): Promise<DevServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const base: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "TMPDIR", "LANG"]) if (process.env[k]) base[k] = process.env[k]!;
  let output = "";
  const child: ChildProcess = spawn(
    command[0],
    [...command.slice(1), "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--studio-url", "http://127.0.0.1:9", "--config", path.join(projectDir, "langgraph.json")],
    {
      cwd: projectDir,
      detached: true, // its own process group, so stop() reaches the API server it spawns
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...base,
        BROWSER: "none",
        LANGGRAPH_CLI_NO_ANALYTICS: "1",
        LANGSMITH_TRACING: "false",
        LANGCHAIN_TRACING_V2: "false",
        LANGSMITH_TRACING_V2: "false",
        LANGCHAIN_CALLBACKS_BACKGROUND: "false",
        NO_COLOR: "1",
        ...env,
      },
    },
  );
  child.stdout!.on("data", (d) => (output += String(d)));
  child.stderr!.on("data", (d) => (output += String(d)));
  const log = () => output;
  let exited = false;
  child.once("exit", () => (exited = true));
  const pid = child.pid!;
  const stop = async () => {
    if (groupAlive(pid)) process.kill(-pid, "SIGTERM");
    await until("the server did not exit", 20_000, () => !groupAlive(pid), log).catch(() => {
      if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
    });
    await until("the server did not die", 5_000, () => !groupAlive(pid), log);
  };
  try {
    await until("the server did not answer /ok", 90_000, async () => {
      if (exited) throw new Error(`the server exited; log:\n${log()}`);
      try {
        // 200, or 401 when the project has an auth handler: either way the server answers.
        const status = (await fetch(`${url}/ok`)).status;
        return (status === 200 || status === 401) && log().includes("Server running");
      } catch {
        return false;
      }
    }, log);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, log, stop };
}
