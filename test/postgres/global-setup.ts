import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

/**
 * Starts a throwaway PostgreSQL server (Debian's `postgresql` package) for
 * `npm run test:postgres`: initdb in a temp directory, then pg_ctl on a free
 * port on 127.0.0.1. Run as root, the server runs as the `postgres` OS user
 * (PostgreSQL refuses root). With DATABASE_URL set, that server is used instead
 * and nothing is started.
 */
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = "/usr/lib/postgresql";
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error("no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql), and DATABASE_URL is not set");
  return path.join(base, versions[0], "bin");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide("databaseUrl", process.env.DATABASE_URL);
    return;
  }
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-test-"));
  fs.chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, cmd), ...args], { stdio: "pipe" })
      : execFileSync(path.join(bin, cmd), args, { stdio: "pipe" });
  const data = path.join(dir, "data");
  fs.mkdirSync(data);
  if (asRoot) execFileSync("chown", ["-R", "postgres", dir]);
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  run("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-w", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100 -c deadlock_timeout=50ms`, "start"]);
  project.provide("databaseUrl", `postgres://postgres@127.0.0.1:${port}/postgres`);
  return () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}
