import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A throwaway PostgreSQL server (Debian's `postgresql` package, with pgvector
 * when installed: ../shared/tools/install-pgvector.sh): initdb in a temp
 * directory, then pg_ctl on a free port on 127.0.0.1. Run as root, the
 * server runs as the `postgres` OS user (PostgreSQL refuses root). Used by
 * test/postgres/global-setup.ts and bench/postgres.ts.
 */
export interface PgCluster {
  url: string;
  /** The data directory (for pg_ctl). */
  dataDir: string;
  /** Runs a PostgreSQL binary (pg_ctl, psql…) as the server's OS user. */
  run: (cmd: string, args: string[]) => Buffer;
  /** `pg_ctl restart` (fast shutdown: every connection is ended), waiting until it accepts connections again. */
  restart: () => void;
  stop: () => void;
}

export function pgBinDir(): string | undefined {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = "/usr/lib/postgresql";
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.length ? path.join(base, versions[0], "bin") : undefined;
}

/** Where pgvector's control file would be for the server in `bin` (undefined: not installed). */
export function pgvectorInstalled(bin: string): boolean {
  try {
    const share = execFileSync(path.join(bin, "pg_config"), ["--sharedir"], { encoding: "utf8" }).trim();
    return fs.existsSync(path.join(share, "extension", "vector.control"));
  } catch {
    const version = path.basename(path.dirname(bin));
    return fs.existsSync(`/usr/share/postgresql/${version}/extension/vector.control`);
  }
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

export async function startPgCluster(options: { bin: string; settings?: string[] }): Promise<PgCluster> {
  const { bin } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-cluster-"));
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
  const settings = ["listen_addresses=127.0.0.1", "fsync=off", "max_connections=200", "deadlock_timeout=50ms", ...(options.settings ?? [])];
  const serverOptions = `-p ${port} -k ${dir} ${settings.map((s) => `-c ${s}`).join(" ")}`;
  const log = path.join(dir, "server.log");
  run("pg_ctl", ["-D", data, "-l", log, "-w", "-o", serverOptions, "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: data,
    run,
    restart: () => void run("pg_ctl", ["-D", data, "-l", log, "-w", "-m", "fast", "-o", serverOptions, "restart"]),
    stop: () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
