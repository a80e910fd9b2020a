import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";

/**
 * Several processes share one real PostgreSQL server (started by
 * global-setup.ts, or DATABASE_URL). No vector index: everything that does not
 * need pgvector.
 */
const root = path.resolve(import.meta.dirname, "../..");
const url = inject("databaseUrl");
const WRITERS = [1, 2, 10, 11];
const BATCHES = 30;
const schema = `mp_${process.pid}`;
let admin: pg.Pool;

function runWriter(id: number): Promise<{ acks: number[]; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/postgres/writer-child.ts"), url, schema, String(id), String(BATCHES)], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let stderr = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on("exit", (code) => resolve({ code, stderr, acks: [...out.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1])) })),
  );
}

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: url, max: 2 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});
afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

describe("PostgresMemoryStore shared by several processes", () => {
  it("loses and duplicates no acknowledged write; batches stay atomic; setup runs once", async () => {
    const runs = await Promise.all(WRITERS.map(runWriter));
    for (const [i, r] of runs.entries()) {
      expect(r.stderr, `writer ${WRITERS[i]}`).toBe("");
      expect(r.code).toBe(0);
      expect(r.acks.sort((a, b) => a - b)).toEqual(Array.from({ length: BATCHES }, (_, b) => b));
    }
    const store = new PostgresMemoryStore({ connectionString: url, schema });
    try {
      // Migrations applied once although four processes set up at the same moment.
      expect((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".memory_migrations`)).rows[0].n).toBe(1);
      for (const id of WRITERS) {
        // Each batch left 4 items (it deleted its item 4 after putting it).
        expect(await store.count(["users", `p${id}`])).toBe(BATCHES * 4);
        const items = await store.search(["users", `p${id}`], { limit: 1000 });
        expect(items.every((it) => it.namespace[1] === `p${id}` && it.value.writer === id)).toBe(true);
        const keys = new Set(items.map((it) => it.key));
        expect(keys.size).toBe(items.length);
        for (let b = 0; b < BATCHES; b++) {
          for (let i = 0; i < 5; i++) expect(keys.has(`own/${b}-${i}`), `p${id} own/${b}-${i}`).toBe(i !== 4);
        }
      }
      // Whole-label prefixes: p1 does not see p10 or p11.
      expect(await store.listNamespaces({ prefix: ["users", "p1"] })).toEqual([["users", "p1"]]);
      // The shared keys all hold the tag of one batch: the last to commit wrote all ten.
      const shared = await store.search(["shared"], { limit: 100 });
      expect(shared).toHaveLength(10);
      expect(new Set(shared.map((s) => s.value.tag)).size).toBe(1);
      const total = (await admin.query(`SELECT count(*)::int AS n, count(DISTINCT (ns, key))::int AS d FROM "${schema}".memory_items`)).rows[0];
      expect(total.n).toBe(total.d);
      expect(total.n).toBe(WRITERS.length * BATCHES * 4 + 10);
    } finally {
      await store.close();
    }
  }, 300_000);

  it("deleteNamespace, count and keyword search agree across processes", async () => {
    const a = new PostgresMemoryStore({ connectionString: url, schema: `${schema}_b` });
    const b = new PostgresMemoryStore({ connectionString: url, schema: `${schema}_b` });
    try {
      await a.put(["users", "u1"], "x", { text: "Biscuit the beagle" });
      await a.put(["users", "u10"], "x", { text: "Biscuit the cat" });
      expect((await b.search(["users", "u1"], { query: "biscuit" })).map((r) => r.value.text)).toEqual(["Biscuit the beagle"]);
      expect(await b.deleteNamespace(["users", "u1"])).toBe(1);
      expect(await a.get(["users", "u1"], "x")).toBeNull();
      expect(await a.count(["users"])).toBe(1);
    } finally {
      await a.close();
      await b.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}_b" CASCADE`);
    }
  });
});
