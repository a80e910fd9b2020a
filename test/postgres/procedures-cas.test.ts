/**
 * Compare-and-set of learned instructions on the real PostgreSQL server: two
 * PostgresMemoryStore instances on their own pools (as two processes) share
 * one schema. The second writer of a version gets ProcedureConflictError;
 * racing writers never lose an update silently.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ProcedureConflictError } from "../../src/errors.js";
import { procedureHistory } from "../../src/procedures/history.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { expectCompareAndSet } from "../helpers/procedure-race.js";
import { databaseUrl, freshSchema } from "./real-server.js";

async function twoProcesses() {
  const schema = freshSchema();
  const pools = [new pg.Pool({ connectionString: databaseUrl(), max: 3 }), new pg.Pool({ connectionString: databaseUrl(), max: 3 })];
  const [a, b] = pools.map((pool) => new PostgresMemoryStore({ pool, schema }));
  await a.setup();
  await b.setup();
  return {
    a, b,
    cleanup: async () => {
      await a.close();
      await b.close();
      await pools[0].query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await Promise.all(pools.map((p) => p.end()));
    },
  };
}

describe("compare-and-set of learned instructions on PostgreSQL", () => {
  it("the writer that read a replaced version gets ProcedureConflictError and writes nothing", async () => {
    const { a, b, cleanup } = await twoProcesses();
    try {
      await expectCompareAndSet(a, b);
    } finally {
      await cleanup();
    }
  });

  it("eight concurrent writers from version 1: one wins, seven conflict, no version is lost", async () => {
    const { a, b, cleanup } = await twoProcesses();
    try {
      const scope = { agentId: "bot" };
      await setProcedure(a, scope, { instructions: "Start.", reason: "start" });
      const clients = Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b));
      // Each client reads version 1, then writes expecting it (different store objects: no shared in-process lock between a and b).
      const outcomes = await Promise.allSettled(clients.map((c, i) => setProcedure(c, scope, { instructions: `Start.\nRule ${i}.`, reason: `writer ${i}`, expectedVersion: 1 })));
      const won = outcomes.filter((o) => o.status === "fulfilled");
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(7);
      for (const l of lost) expect(l.reason).toBeInstanceOf(ProcedureConflictError);
      expect((await getProcedure(a, scope))?.version).toBe(2);
      expect((await procedureHistory(b, scope)).map((r) => r.version)).toEqual([2, 1]);
    } finally {
      await cleanup();
    }
  });
});
