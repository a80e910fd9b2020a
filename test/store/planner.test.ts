import { Embeddings } from "@langchain/core/embeddings";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";

/**
 * TEST DOUBLE: maps "v:<i>" to a fixed pseudo-random unit vector, so that the
 * exact answer of a search can be computed independently.
 */
class TableEmbeddings extends Embeddings {
  readonly model = "table";
  constructor(readonly dims: number, private readonly seed = 7) {
    super({});
  }
  vector(text: string): number[] {
    let s = this.seed;
    for (const c of text) s = (Math.imul(s, 31) + c.charCodeAt(0)) | 0;
    const v: number[] = [];
    for (let i = 0; i < this.dims; i++) {
      s = (Math.imul(s, 1103515245) + 12345) | 0;
      v.push(((s >>> 8) & 0xffff) / 0xffff - 0.5);
    }
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  }
  async embedDocuments(texts: string[]) {
    return texts.map((t) => this.vector(t));
  }
  async embedQuery(text: string) {
    return this.vector(text);
  }
}

const stores: HNSWStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

function exactTop(emb: TableEmbeddings, query: string, texts: { key: string; text: string }[], k: number): string[] {
  const q = emb.vector(query);
  return texts
    .map(({ key, text }) => ({ key, s: emb.vector(text).reduce((a, x, i) => a + x * q[i], 0) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((r) => r.key);
}

describe("search planner", () => {
  const emb = new TableEmbeddings(24);
  async function build(exactScanThreshold: number) {
    const store = new HNSWStore({
      index: { dims: 24, embeddings: emb, fields: ["t"] },
      retrieval: "vector",
      embeddingCache: false,
      hnsw: { M: 8, efConstruction: 64, efSearch: 16, exactScanThreshold },
    });
    stores.push(store);
    const mine: { key: string; text: string }[] = [];
    const big: { key: string; text: string }[] = [];
    const ops = [];
    for (let i = 0; i < 20_000; i++) {
      const text = `v:${i}`;
      if (i % 200 === 0) {
        mine.push({ key: `k${i}`, text });
        ops.push({ namespace: ["users", "u1"], key: `k${i}`, value: { t: text, parity: i % 2 } });
      } else if (i % 4 === 1) {
        big.push({ key: `k${i}`, text });
        ops.push({ namespace: ["big"], key: `k${i}`, value: { t: text, parity: i % 2 } });
      } else {
        ops.push({ namespace: ["users", `u${2 + (i % 50)}`], key: `k${i}`, value: { t: text, parity: i % 2 } });
      }
    }
    for (let i = 0; i < ops.length; i += 5000) await store.batch(ops.slice(i, i + 5000));
    return { store, mine, big };
  }

  it("answers one user's search among many by an exact scan: recall 1.0", async () => {
    const { store, mine } = await build(2000);
    expect(mine).toHaveLength(100);
    for (let q = 0; q < 20; q++) {
      const query = `v:query-${q}`;
      const got = (await store.search(["users", "u1"], { query, limit: 10 })).map((r) => r.key);
      expect(got).toEqual(exactTop(emb, query, mine, 10));
    }
  });

  it("uses a filtered HNSW walk for large selections and still fills the limit with in-scope items", async () => {
    const { store, big } = await build(100);
    let hits = 0;
    for (let q = 0; q < 20; q++) {
      const query = `v:query-${q}`;
      const res = await store.search(["big"], { query, limit: 10, filter: { parity: 1 } });
      expect(res).toHaveLength(10);
      for (const r of res) {
        expect(r.namespace).toEqual(["big"]);
        expect(r.value.parity).toBe(1);
      }
      const exact = exactTop(emb, query, big, 10);
      hits += res.filter((r) => exact.includes(r.key)).length;
      for (let i = 1; i < res.length; i++) expect(res[i - 1].score!).toBeGreaterThanOrEqual(res[i].score!);
    }
    expect(hits / 200).toBeGreaterThanOrEqual(0.9);
  });
});
