import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DatabaseConnectionError } from "../../../src/errors.js";
import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../../helpers/fake-embeddings.js";
import { tempDir } from "../../helpers/temp-dir.js";

/**
 * docs/postgres.md's PGlite recipe, run as it is written there (its imports
 * pointed at this checkout's sources), with the real local embedder, in a
 * child process; and the pool-size rule it explains.
 */
const root = path.resolve(import.meta.dirname, "../../..");

function recipe(): string {
  const doc = fs.readFileSync(path.join(root, "docs/postgres.md"), "utf8");
  const block = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("PGLiteSocketServer"));
  if (!block) throw new Error("docs/postgres.md has no PGlite recipe");
  return block
    .replace(`from "langgraph-hnsw-memory/postgres"`, `from ${JSON.stringify(path.join(root, "src/store/postgres/index.ts"))}`)
    .replace(`from "langgraph-hnsw-memory"`, `from ${JSON.stringify(path.join(root, "src/index.ts"))}`);
}

describe("docs/postgres.md: PGlite in one process", () => {
  it("the recipe runs as written: parallel puts over the connectionString form, then a semantic search", async () => {
    const data = tempDir("pglite-recipe-");
    const file = path.join(root, `.recipe-pglite-${process.pid}.mts`);
    fs.writeFileSync(file, recipe());
    try {
      const child = spawn(process.execPath, ["--import", "tsx", file], { cwd: root, env: { ...process.env, PGLITE_DIR: data.dir }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      const code = await new Promise((resolve) => child.on("exit", resolve));
      expect(err).not.toMatch(/Connection terminated|Error/);
      expect(code).toBe(0);
      expect(out).toMatch(/\[ 'Lives in Lisbon' \]/);
    } finally {
      fs.rmSync(file, { force: true });
      data.cleanup();
    }
  }, 300_000);

  it("a caller's pool larger than the socket server's maxConnections fails with a DatabaseConnectionError that says why", async () => {
    const db = await PGlite.create({ extensions: { vector } });
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 });
    await server.start();
    const pool = new pg.Pool({ connectionString: `postgres://postgres@${server.getServerConn()}/postgres`, max: 4 });
    const store = new PostgresMemoryStore({ pool, connectionRetryMs: 0, index: { dims: 8, embeddings: new FakeEmbeddings({ dims: 8 }) } });
    try {
      await store.setup();
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.put(["u"], `k${i}`, { text: `item ${i}` })));
      const failures = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason);
      expect(failures.length).toBeGreaterThan(0);
      for (const f of failures) {
        expect(f).toBeInstanceOf(DatabaseConnectionError);
        expect(String(f.message)).toMatch(/maxConnections/);
      }
    } finally {
      await store.close();
      await pool.end().catch(() => undefined);
      await server.stop();
      await db.close();
    }
  }, 300_000);
});
