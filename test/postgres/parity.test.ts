import { afterAll, beforeAll, expect, it } from "vitest";
import { HNSWStore, InvalidArgumentError, InvalidNamespaceError, InvalidValueError } from "../../src/index.js";
import { MAX_KEY_BYTES, MAX_NAMESPACE_BYTES } from "../../src/store/text-rules.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { describeWithVectors, poolForFile, realStore } from "./real-server.js";

/**
 * HNSWStore and PostgresMemoryStore (real server) accept and refuse the same
 * input with the same named errors: what PostgreSQL cannot keep (NUL, lone
 * surrogates, primary-key entries over ~2.7 KB) is refused by both, what it
 * can keep with care (a text whose tsvector would pass 1 MB) is kept by both.
 */
const server = poolForFile(2);
const DIMS = 16;

/** A string of `bytes` UTF-8 bytes that does not compress (so TOAST cannot hide a too-long key). */
function incompressible(bytes: number, seed: number): string {
  let s = "";
  let x = seed;
  while (s.length < bytes) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    s += "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[x % 62];
  }
  return s;
}

type Case = { name: string; ns: string[]; key: string; value: Record<string, unknown>; error?: new (...a: never[]) => Error };
const cases: Case[] = [
  { name: "lone high surrogate in a label", ns: ["users", "a\ud800"], key: "k", value: { text: "x" }, error: InvalidNamespaceError },
  { name: "lone low surrogate in a label", ns: ["users", "a\udc01"], key: "k", value: { text: "x" }, error: InvalidNamespaceError },
  { name: "lone surrogate in a key", ns: ["users"], key: "k\ud800", value: { text: "x" }, error: InvalidArgumentError },
  { name: "NUL in a key", ns: ["users"], key: "a\u0000b", value: { text: "x" }, error: InvalidArgumentError },
  { name: "NUL in a value string", ns: ["users"], key: "k", value: { text: "a\u0000b" }, error: InvalidValueError },
  { name: "NUL in a value's object key", ns: ["users"], key: "k", value: { nested: { ["a\u0000"]: 1 } }, error: InvalidValueError },
  { name: "lone surrogate in a value string", ns: ["users"], key: "k", value: { list: ["ok", "b\udfff"] }, error: InvalidValueError },
  { name: "key over MAX_KEY_BYTES", ns: ["users"], key: incompressible(MAX_KEY_BYTES + 1, 1), value: { text: "x" }, error: InvalidArgumentError },
  { name: "namespace over MAX_NAMESPACE_BYTES", ns: ["users", incompressible(MAX_NAMESPACE_BYTES - 5, 2)], key: "k", value: { text: "x" }, error: InvalidNamespaceError },
  { name: "key of MAX_KEY_BYTES, incompressible", ns: ["users"], key: incompressible(MAX_KEY_BYTES, 3), value: { text: "x" } },
  { name: "namespace of MAX_NAMESPACE_BYTES and key of MAX_KEY_BYTES", ns: ["users", incompressible(MAX_NAMESPACE_BYTES - 6, 4)], key: incompressible(MAX_KEY_BYTES, 5), value: { text: "y" } },
  { name: "a 2-byte character key at the limit", ns: ["users"], key: "é".repeat(MAX_KEY_BYTES / 2), value: { text: "x" } },
  { name: "surrogate pairs (emoji) are fine", ns: ["users", "😀"], key: "🎉", value: { text: "party 🎈" } },
  { name: "a text whose tsvector would pass 1 MB", ns: ["users"], key: "big", value: { text: Array.from({ length: 300_000 }, (_, i) => `w${i}`).join(" ") } },
];

describeWithVectors("input parity: HNSWStore and PostgresMemoryStore", () => {
  const dir = tempDir("parity-");
  const embeddings = new FakeEmbeddings({ dims: DIMS });
  const hnsw = new HNSWStore({ path: dir.dir, index: { dims: DIMS, embeddings } });
  let pg: ReturnType<typeof realStore>;
  beforeAll(() => {
    pg = realStore(server.pool, { dims: DIMS });
  });
  afterAll(async () => {
    await hnsw.close();
    dir.cleanup();
    await pg?.cleanup();
  });

  for (const c of cases) {
    it(`${c.name}: ${c.error ? `refused with ${c.error.name} by both` : "kept by both, unchanged"}`, async () => {
      for (const [name, store] of [["HNSWStore", hnsw], ["PostgresMemoryStore", pg.store]] as const) {
        const outcome = await store.put(c.ns, c.key, c.value).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (c.error) {
          expect(outcome, name).toBeInstanceOf(c.error);
          expect((outcome as Error).constructor.name, name).toBe(c.error.name);
        } else {
          expect(outcome, `${name}: ${String(outcome)}`).toBeUndefined();
          expect((await store.get(c.ns, c.key))?.value, name).toEqual(c.value);
          await store.delete(c.ns, c.key);
        }
      }
    });
  }

  it("two labels that differ only in a lone surrogate never become one namespace", async () => {
    for (const store of [hnsw, pg.store]) {
      await expect(store.put(["t", "x\ud800"], "k", { a: 1 })).rejects.toBeInstanceOf(InvalidNamespaceError);
      await expect(store.put(["t", "x\ud801"], "k", { a: 2 })).rejects.toBeInstanceOf(InvalidNamespaceError);
      await expect(store.search(["t", "x\ud800"])).rejects.toBeInstanceOf(InvalidNamespaceError);
      expect(await store.listNamespaces({ prefix: ["t"] })).toEqual([]);
    }
  });

  it("a very long text is found by its words in PostgreSQL too", async () => {
    const text = Array.from({ length: 300_000 }, (_, i) => `w${i}`).join(" ") + " zebra";
    await pg.store.put(["big"], "k", { text });
    const hits = await pg.store.search(["big"], { query: "w12345" });
    expect(hits.map((h) => h.key)).toEqual(["k"]);
  });
});
