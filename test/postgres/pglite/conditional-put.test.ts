/**
 * Conditional puts (compare-and-set) of PostgresMemoryStore on PGlite +
 * pgvector over the pg driver: the advisory lock and the check work on that
 * engine too, and learned instructions refuse a stale writer.
 */
import { describe, expect, it } from "vitest";
import { StoreConflictError } from "../../../src/errors.js";
import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { expectCompareAndSet, InterleavingStore } from "../../helpers/procedure-race.js";
import { closeStoresAfterEach, pgliteForFile } from "./pglite.js";

const pg = pgliteForFile();
const open = closeStoresAfterEach(pg);

describe("conditional puts on PGlite", () => {
  it("a failed condition refuses the whole batch; instructions refuse a stale writer", async () => {
    const schema = pg.server.freshSchema();
    const store = new PostgresMemoryStore({ pool: pg.server.pool, schema });
    open.push({ store, schema });
    await store.batch([{ namespace: ["a"], key: "k", value: { version: 1 }, ifValue: { field: "version", equals: null } } as never]);
    await expect(store.batch([{ namespace: ["a"], key: "k", value: { version: 9 }, ifValue: { field: "version", equals: 2 } } as never])).rejects.toThrow(StoreConflictError);
    expect((await store.get(["a"], "k"))?.value).toEqual({ version: 1 });
    await expectCompareAndSet(new InterleavingStore(store, async () => {}), new InterleavingStore(store, async () => {}));
  });
});
