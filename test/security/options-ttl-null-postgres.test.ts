/**
 * `ttl: { defaultTtl: null }` on the PostgreSQL store, on a real engine
 * (PGlite with pgvector, over the pg driver): null means "never expires",
 * as a per-put `ttl: null` does. It used to expire every put at creation.
 */
import { describe, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { pgliteForFile } from "../postgres/pglite/pglite.js";

const pg = pgliteForFile();

describe("PostgresMemoryStore ttl.defaultTtl null", () => {
  it("keeps every acknowledged put; a per-put ttl still expires", async () => {
    let now = 1_000_000;
    const store = new PostgresMemoryStore({ pool: pg.server.pool, schema: pg.server.freshSchema(), ttl: { defaultTtl: null }, clock: () => now });
    await store.put(["u"], "kept", { text: "kept" });
    await store.put(["u"], "short", { text: "short" }, undefined, { ttl: 1 });
    now += 10 * 60_000;
    expect((await store.get(["u"], "kept"))?.value).toEqual({ text: "kept" });
    expect(await store.get(["u"], "short")).toBeNull();
    expect((await store.search(["u"])).map((i) => i.key)).toEqual(["kept"]);
    await store.close();
  });
});
