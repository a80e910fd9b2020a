import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { lowRankUnitVectors, PrecomputedEmbeddings } from "../../bench/lib/vectors.js";
import { databaseUrl, describeWithVectors, freshSchema } from "./real-server.js";

/**
 * Vectors stay in their rows (toast_tuple_target at its maximum): a 512-d
 * vector is just over PostgreSQL's 2 KB default, so each one used to go to
 * the TOAST table. Tables from before get the setting when a store opens them.
 */
const DIMS = 512;

describeWithVectors("vector storage", () => {
  const admin = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
  const schema = freshSchema();
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const options = () => (admin.query<{ o: string[] | null }>(`SELECT reloptions AS o FROM pg_class WHERE oid = to_regclass($1)`, [`"${schema}".memory_vectors`]));
  const toastBytes = async () =>
    Number((await admin.query<{ b: string }>(`SELECT pg_relation_size(reltoastrelid) AS b FROM pg_class WHERE oid = to_regclass($1)`, [`"${schema}".memory_vectors`])).rows[0].b);

  it("512-d vectors are stored in their rows, and an older table gets the setting on open", async () => {
    const embeddings = new PrecomputedEmbeddings(lowRankUnitVectors(200, DIMS, 1), lowRankUnitVectors(2, DIMS, 2), DIMS);
    const index = { dims: DIMS, embeddings, fields: ["text"] };
    const store = new PostgresMemoryStore({ connectionString: databaseUrl(), schema, index });
    await store.batch(Array.from({ length: 100 }, (_, i) => ({ namespace: ["u"], key: `k${i}`, value: { text: `v:${i}` } })));
    expect((await options()).rows[0].o).toContain("toast_tuple_target=8160");
    await store.flushIndex(); // every vector in the indexed table, which the rows below copy from
    expect(await toastBytes()).toBe(0);
    await store.close();

    // A table as an older version created it (the default target), and rows it wrote: their vectors went to TOAST.
    await admin.query(`ALTER TABLE "${schema}".memory_vectors RESET (toast_tuple_target)`);
    await admin.query(`INSERT INTO "${schema}".memory_items (ns, key, value, created_at, updated_at, tsv)
      SELECT 'u', 'old' || g, jsonb_build_object('text', 'old'), 0, 0, to_tsvector('simple', 'old') FROM generate_series(0, 9) g`);
    await admin.query(`INSERT INTO "${schema}".memory_vectors (ns, key, field, embedding)
      SELECT 'u', 'old' || g, 'text', (SELECT embedding FROM "${schema}".memory_vectors WHERE key = 'k' || g) FROM generate_series(0, 9) g`);
    expect(await toastBytes()).toBeGreaterThan(0);

    const reopened = new PostgresMemoryStore({ connectionString: databaseUrl(), schema, index });
    await reopened.setup();
    expect((await options()).rows[0].o).toContain("toast_tuple_target=8160");
    const before = await toastBytes();
    await reopened.batch(Array.from({ length: 50 }, (_, i) => ({ namespace: ["u"], key: `new${i}`, value: { text: `v:${150 + i}` } })));
    expect(await toastBytes()).toBe(before);
    // Old and new rows are all found.
    expect(await reopened.search(["u"], { query: "q:0", limit: 200 })).toHaveLength(160);
    await reopened.close();
  });
});

it("setup takes no lock that blocks readers or writers for the setting (ShareUpdateExclusiveLock)", async () => {
  const c = new pg.Client({ connectionString: databaseUrl() });
  await c.connect();
  try {
    await c.query(`CREATE TEMP TABLE lock_probe (x int)`);
    await c.query("BEGIN");
    await c.query(`ALTER TABLE lock_probe SET (toast_tuple_target = 8160)`);
    const r = await c.query<{ mode: string }>(`SELECT mode FROM pg_locks WHERE relation = 'lock_probe'::regclass AND pid = pg_backend_pid()`);
    expect(r.rows.map((x) => x.mode)).toEqual(["ShareUpdateExclusiveLock"]);
  } finally {
    await c.query("ROLLBACK");
    await c.end();
  }
});
