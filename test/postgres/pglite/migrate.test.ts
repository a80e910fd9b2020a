import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CorruptStoreError,
  exportStore,
  HNSWStore,
  importStore,
  migrateStore,
  MigrationVerificationError,
  type MemoryEntry,
  type MigratableStore,
  type MigrationProgress,
} from "../../../src/index.js";
import { PostgresMemoryStore } from "../../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../../helpers/fake-embeddings.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { pgliteForFile } from "./pglite.js";

/**
 * Migration both ways between HNSWStore on disk and PostgresMemoryStore on
 * PGlite + pgvector, and through JSONL exports. FakeEmbeddings is a TEST
 * DOUBLE (bag of words).
 */
const DIMS = 32;
const pg = pgliteForFile();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Bag-of-words vectors tie often; a tiny per-text perturbation makes rankings unique. */
function fake(model?: string) {
  const e = new FakeEmbeddings({ dims: DIMS, model });
  e.mangle = (v, text) => v.map((x, i) => x + 1e-3 * Math.sin(i * 7.1 + text.length * 3.3 + text.charCodeAt(text.length - 1)));
  return e;
}

const T0 = Date.parse("2025-03-01T10:00:00Z");

function hnsw(embeddings = fake()) {
  const dir = tempDir("migrate-");
  const store = new HNSWStore({ path: dir.dir, index: { dims: DIMS, embeddings, fields: ["text"] }, ttl: { sweepIntervalMinutes: 0 } });
  cleanups.push(async () => {
    await store.close();
    dir.cleanup();
  });
  return { store, embeddings, dir: dir.dir };
}

function postgres(embeddings = fake()) {
  const schema = pg.server.freshSchema();
  const store = new PostgresMemoryStore({ pool: pg.server.pool, schema, index: { dims: DIMS, embeddings, fields: ["text"] }, ttl: { sweepIntervalMinutes: 0 } });
  cleanups.push(async () => {
    await store.close();
    await pg.server.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  return { store, embeddings };
}

/** A source with 60 items over 3 users (u1, u10, u2), TTLs, an index override and an unindexed item. */
async function seed(store: HNSWStore) {
  const entries: MemoryEntry[] = [];
  for (const u of ["u1", "u10", "u2"]) {
    for (let i = 0; i < 20; i++) {
      entries.push({
        namespace: ["users", u, "memories"],
        key: `m${i}`,
        value: { text: `user ${u} fact ${i} ${["coffee", "tea", "chess", "lisbon"][i % 4]}`, meta: { i, tags: ["a", "b"] } },
        createdAt: T0 + i * 1000,
        updatedAt: T0 + i * 1000 + 500,
        ...(i % 5 === 0 ? { ttl: 60 * 24 * 365 * 10, expiresAt: Date.now() + 1e9 } : {}),
      });
    }
  }
  await store.importEntries(entries);
  await store.put(["users", "u2", "memories"], "plain", { text: "not indexed" }, false);
  await store.put(["users", "u2", "memories"], "title", { text: "body", title: "penicillin allergy" }, ["title"]);
}

const snapshot = async (s: { exportEntries: MigratableStore["exportEntries"] }) => {
  const out: MemoryEntry[] = [];
  for await (const page of s.exportEntries({ vectors: false })) out.push(...page);
  return out.sort((a, b) => (JSON.stringify([a.namespace, a.key]) < JSON.stringify([b.namespace, b.key]) ? -1 : 1));
};

describe("migration", () => {
  it("langgraph-memory migrate --to postgres:// copies a directory into PostgreSQL, verified", async () => {
    const { runCli, FAKE } = await import("../../cli/run-cli.js");
    const { FakeEmbeddings } = await import("../../helpers/fake-embeddings.js");
    const dir = tempDir("cli-migrate-");
    cleanups.push(dir.cleanup);
    const src = new HNSWStore({ path: dir.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    for (let i = 0; i < 12; i++) await src.put(["users", `u${i % 3}`], `k${i}`, { text: `memory ${i} about tea` });
    await src.close();
    await pg.server.idle();
    const r = await runCli(["--path", dir.dir, "--json", "migrate", "--to", pg.server.url, "--embeddings", FAKE]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { items: number; verified: boolean; vectorsCopied: boolean };
    expect(report).toMatchObject({ items: 12, verified: true, vectorsCopied: true });
    await pg.server.idle();
    const target = new PostgresMemoryStore({ pool: pg.server.pool, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    expect((await target.search(["users", "u1"], { limit: 20 })).length).toBe(4);
    expect((await target.search(["users", "u1"], { query: "memory 4 about tea", limit: 1 }))[0].key).toBe("k4");
  });

  it("HNSWStore → PostgreSQL → HNSWStore round-trips with no difference, vectors copied, idempotent", async () => {
    const source = hnsw();
    await seed(source.store);
    const pg = postgres();
    const progress: MigrationProgress[] = [];
    const report = await migrateStore(source.store, pg.store, { batchSize: 25, onProgress: (p) => progress.push(p) });
    expect(report).toMatchObject({ items: 62, vectorsCopied: true, verified: true });
    expect(progress.filter((p) => p.phase === "copy").map((p) => p.done)).toEqual([25, 50, 62]);
    expect(pg.embeddings.documentCalls).toHaveLength(0); // nothing re-embedded
    expect(await snapshot(pg.store)).toEqual(await snapshot(source.store));
    // A re-run (after a crash, say) replaces instead of duplicating.
    const again = await migrateStore(source.store, pg.store, { batchSize: 25 });
    expect(again.checksum).toBe(report.checksum);
    expect(await pg.store.count()).toBe(62);

    const back = hnsw();
    const report2 = await migrateStore(pg.store, back.store);
    expect(report2.checksum).toBe(report.checksum);
    expect(await snapshot(back.store)).toEqual(await snapshot(source.store));
    // The timestamps survive the HNSWStore reopen (they are in the snapshot).
    await back.store.close();
    const reopened = new HNSWStore({ path: back.store.path, index: { dims: DIMS, embeddings: back.embeddings, fields: ["text"] } });
    cleanups.push(() => reopened.close());
    expect((await reopened.get(["users", "u1", "memories"], "m3"))?.createdAt.getTime()).toBe(T0 + 3000);
    expect(await snapshot(reopened)).toEqual(await snapshot(source.store));
    // Same vectors, same ranking (searches refresh TTLs, so they come last).
    for (const q of ["lisbon", "penicillin allergy"]) {
      const [a, b] = await Promise.all([pg.store.search(["users", "u2"], { query: q, limit: 5 }), source.store.search(["users", "u2"], { query: q, limit: 5 })]);
      expect(a.map((r) => [r.key, r.score?.toFixed(5)])).toEqual(b.map((r) => [r.key, r.score?.toFixed(5)]));
    }
    expect((await pg.store.search(["users", "u2"], { query: "penicillin allergy", limit: 1 }))[0].key).toBe("title");
  });

  it("exports to JSONL and imports into a store with another embedder, which re-embeds", async () => {
    const { dir } = hnsw();
    const pg = postgres();
    const source = hnsw();
    await seed(source.store);
    await migrateStore(source.store, pg.store);
    const file = path.join(dir, "export.jsonl");
    const exported = await exportStore(pg.store, file);
    const lines = fs.readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(63);
    expect(JSON.parse(lines[0])).toMatchObject({ format: "langgraph-hnsw-memory/export", embedder: { identity: `FakeEmbeddings:fake-bag-of-words-${DIMS}`, dims: DIMS } });

    const other = hnsw(fake("another-model"));
    const imported = await importStore(file, other.store);
    expect(imported).toMatchObject({ items: 62, vectorsCopied: false, verified: true, checksum: exported.checksum });
    expect(other.embeddings.documentCalls.flat().length).toBeGreaterThan(0);
    expect((await other.store.search(["users", "u1"], { query: "chess", limit: 1 }))[0].value.text).toMatch(/chess/);
    // Same embedder: the file's vectors are used, nothing is embedded.
    const same = postgres();
    expect(await importStore(file, same.store)).toMatchObject({ vectorsCopied: true, checksum: exported.checksum });
    expect(same.embeddings.documentCalls).toHaveLength(0);
  });

  it("fails verification when the target lost an item, and refuses a corrupt export", async () => {
    const source = hnsw();
    await seed(source.store);
    const pg = postgres();
    const lossy: MigratableStore = {
      describeIndex: () => pg.store.describeIndex(),
      exportEntries: (o) => pg.store.exportEntries(o),
      importEntries: (entries) => pg.store.importEntries(entries.filter((e) => e.key !== "m7")),
    };
    await expect(migrateStore(source.store, lossy)).rejects.toThrow(MigrationVerificationError);
    const { dir } = hnsw();
    const bad = path.join(dir, "bad.jsonl");
    fs.writeFileSync(bad, '{"format":"something-else"}\n');
    await expect(importStore(bad, pg.store)).rejects.toThrow(CorruptStoreError);
  });
});
