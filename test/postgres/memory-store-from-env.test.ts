/**
 * memoryStoreFromEnv with DATABASE_URL on the suite's real PostgreSQL 15 +
 * pgvector: the lazily loaded PostgresMemoryStore writes, ranks by vector and
 * is seen by a second store from the same environment. Embeddings:
 * FakeEmbeddings, a deterministic TEST DOUBLE.
 */
import { randomBytes } from "node:crypto";
import { afterAll, expect, inject, it } from "vitest";
import { LazyStore, memoryStoreFromEnv } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const url = inject("databaseUrl");
const index = { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] };
const tablePrefix = `envtest_${randomBytes(3).toString("hex")}_`;
const stores: LazyStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

it("DATABASE_URL: a PostgresMemoryStore opened at the first operation; a second process's store sees its writes", async () => {
  const a = memoryStoreFromEnv({ env: { DATABASE_URL: url }, index, postgres: { tablePrefix } }) as LazyStore;
  const b = memoryStoreFromEnv({ env: { DATABASE_URL: url }, index, postgres: { tablePrefix } }) as LazyStore;
  stores.push(a, b);
  await a.put(["users", "1"], "veg", { text: "User is vegetarian." });
  await a.put(["users", "1"], "cello", { text: "User plays the cello." });
  const hits = await b.search(["users", "1"], { query: "vegetarian", limit: 2 });
  expect(hits.map((h) => h.key)).toEqual(["veg", "cello"]);
  expect(typeof hits[0].score).toBe("number");
  expect(await b.listNamespaces({ prefix: ["users"] })).toEqual([["users", "1"]]);
});
