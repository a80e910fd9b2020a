/**
 * A small selection's BM25 on a real server reads the values of new and changed items only: the
 * keyword documents of the others are kept between searches, keyed by the version of their row
 * (`xmin`), so a write by any process is read again, the ranking is the one a fresh store gives,
 * and a delete leaves no item's text in memory.
 */
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import type { KeywordDocuments } from "../../src/store/postgres/keyword-documents.js";
import { statementLog } from "../../bench/lib/pg-statement-log.js";
import { afterAll, expect, it } from "vitest";
import { describeWithVectors, poolForFile, realStore } from "./real-server.js";

const trace = statementLog();
const readsValues = (text: string) => /i\.index_fields FROM/.test(text);

describeWithVectors("a small selection's keyword documents (real server)", () => {
  const holder = poolForFile(4);
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  for (const retrieval of ["keyword", "hybrid"] as const) {
    it(`${retrieval}: a warm search reads only the page's values; another process's write is read again; a fresh store ranks the same; a delete keeps nothing`, async () => {
      const { store, schema, embeddings, cleanup } = realStore(holder.pool, { dims: 32, fields: ["text"], store: { retrieval } });
      cleanups.push(cleanup);
      const ns = ["users", "ann"];
      const fruit = ["apple", "banana", "plum", "pear", "fig", "kiwi", "lime", "grape"];
      await store.batch(Array.from({ length: 40 }, (_, i) => ({ namespace: ns, key: `k${i}`, value: { text: `likes ${fruit[i % 8]} and ${fruit[(i * 3) % 8]} tea number ${i}` } })));
      await store.search(ns, { query: "plum tea", limit: 5 });
      trace.log.length = 0;
      trace.on = true;
      const warm = await store.search(ns, { query: "plum tea", limit: 5 });
      trace.on = false;
      expect(warm).toHaveLength(5);
      expect(trace.log.filter((s) => readsValues(s.text))).toHaveLength(0);

      // Another process (a second store on the same tables) rewrites one item: its new text is ranked.
      const other = new PostgresMemoryStore({ pool: holder.pool, schema, index: { dims: 32, embeddings, fields: ["text"] }, retrieval });
      await other.put(ns, "k7", { text: "cherry cherry pie with cherry" });
      trace.log.length = 0;
      trace.on = true;
      const after = await store.search(ns, { query: "cherry", limit: 5 });
      trace.on = false;
      expect(after[0]?.key).toBe("k7");
      // One value read: the changed item's.
      const reads = trace.log.filter((s) => readsValues(s.text));
      expect(reads).toHaveLength(1);
      expect((reads[0]!.values![1] as string[])).toEqual(["k7"]);

      // A fresh store (nothing kept) gives the same page, scores included.
      for (const query of ["plum tea", "cherry", "banana kiwi number 12"]) {
        const fresh = await other.search(ns, { query, limit: 10 });
        expect((await store.search(ns, { query, limit: 10 })).map((h) => [h.key, h.score])).toEqual(fresh.map((h) => [h.key, h.score]));
      }
      await other.close();

      // A delete drops every kept document.
      const kept = (store as unknown as { keywordDocuments: KeywordDocuments }).keywordDocuments;
      expect(kept.size).toBeGreaterThan(0);
      await store.delete(ns, "k3");
      expect(kept.size).toBe(0);
      await store.search(ns, { query: "plum", limit: 5 });
      expect(kept.size).toBe(39);
      await store.deleteNamespace(ns);
      expect(kept.size).toBe(0);
    });
  }
});
