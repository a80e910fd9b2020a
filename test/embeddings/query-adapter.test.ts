import { describe, expect, it } from "vitest";
import { Embeddings } from "@langchain/core/embeddings";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { CachedEmbeddings } from "../../src/embeddings/cached-embeddings.js";
import { QUERY_ADAPTER_MODEL, adaptQueryVector, bundledQueryAdapter, queryAdapterFor } from "../../src/embeddings/query-adapter.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { InvalidArgumentError } from "../../src/errors.js";
import { findNeighbours } from "../../src/extract/consolidate.js";
import { operationFromWire, operationToWire } from "../../src/store/remote/wire.js";
import type { MemorySearchOperation } from "../../src/store/operations.js";

const use = new UniversalSentenceEncoderEmbeddings();

/** Another embedder with USE-lite's vectors under another identity. */
class OtherEmbeddings extends Embeddings {
  readonly model = "other-model";
  constructor() {
    super({});
  }
  embedDocuments(texts: string[]) {
    return use.embedDocuments(texts);
  }
  embedQuery(text: string) {
    return use.embedQuery(text);
  }
}

const FACTS = [
  "Allergic to shellfish",
  "Drinks oat milk in her coffee",
  "Works as a nurse at the city hospital",
  "Has a sister called Maya",
  "Goes running every Sunday morning",
  "Lives in Lisbon",
  "Plays the cello in an amateur orchestra",
  "Prefers window seats on flights",
];
const QUESTION = "what must she avoid eating?";

async function rankOf(queryAdapter: boolean | undefined, embeddings: Embeddings): Promise<number> {
  const store = new HNSWStore({ index: { dims: 512, embeddings, fields: ["text"], ...(queryAdapter === undefined ? {} : { queryAdapter }) }, retrieval: "vector" });
  try {
    for (const [i, text] of FACTS.entries()) await store.put(["memories", "u"], `f${i}`, { text });
    const hits = await store.search(["memories", "u"], { query: QUESTION, limit: FACTS.length });
    return hits.findIndex((h) => h.key === "f0");
  } finally {
    await store.close();
  }
}

describe("query adapter for USE-lite", () => {
  it("is the shipped one for USE-lite (also behind CachedEmbeddings) and none for another embedder", () => {
    expect(use.model).toBe(QUERY_ADAPTER_MODEL);
    expect(queryAdapterFor(use)).toBe(bundledQueryAdapter());
    expect(queryAdapterFor(new CachedEmbeddings({ embeddings: use }))).toBe(bundledQueryAdapter());
    expect(queryAdapterFor(new OtherEmbeddings())).toBeUndefined();
  });

  it("changes the query vector into another unit vector, leaves the input and other embedders' vectors alone", async () => {
    const q = await use.embedQuery(QUESTION);
    const copy = [...q];
    const adapted = adaptQueryVector(use, q);
    expect(q).toEqual(copy);
    expect(adapted).toHaveLength(512);
    expect(Math.hypot(...adapted)).toBeCloseTo(1, 5);
    const cos = adapted.reduce((s, x, i) => s + x * q[i]!, 0);
    expect(cos).toBeLessThan(0.999);
    expect(cos).toBeGreaterThan(0.3);
    expect(adaptQueryVector(new OtherEmbeddings(), q)).toBe(q);
    expect(adaptQueryVector(use, q.slice(0, 100))).toHaveLength(100);
  });

  it("lets a question find its fact through the store; queryAdapter: false and other embedders rank as before", async () => {
    const off = await rankOf(false, use);
    const on = await rankOf(undefined, use);
    const other = await rankOf(undefined, new OtherEmbeddings());
    expect(on).toBe(0);
    expect(off).toBeGreaterThan(0);
    expect(other).toBe(off);
  });

  it("stores the facts' own vectors (the adapter touches queries only)", async () => {
    const store = new HNSWStore({ index: { dims: 512, embeddings: use, fields: ["text"] }, retrieval: "vector" });
    try {
      await store.put(["memories", "u"], "f0", { text: FACTS[0]! });
      const [hit] = await store.search(["memories", "u"], { query: FACTS[0]!, limit: 1 });
      const q = await use.embedQuery(FACTS[0]!);
      const adapted = adaptQueryVector(use, q);
      const cos = adapted.reduce((s, x, i) => s + x * q[i]!, 0);
      expect(hit!.score).toBeCloseTo(cos, 3);
    } finally {
      await store.close();
    }
  });

  it("refuses a queryAdapter that is not a boolean", () => {
    expect(() => new HNSWStore({ index: { dims: 512, embeddings: use, queryAdapter: "yes" as unknown as boolean } })).toThrow(InvalidArgumentError);
  });

  it("a search of a memory's own text with queryAdapter: false scores a plain cosine, so duplicate checks keep their threshold", async () => {
    const store = new HNSWStore({ index: { dims: 512, embeddings: use, fields: ["text"] }, retrieval: "vector" });
    try {
      for (const [i, text] of FACTS.entries()) await store.put(["memories", "u"], `f${i}`, { text });
      const ns = ["memories", "u"];
      // One batch, the same query adapted and not: two vectors, two walks, two sets of scores.
      const [adapted, plain] = await store.batch<[MemorySearchOperation, MemorySearchOperation]>([
        { namespacePrefix: ns, query: FACTS[3]!, limit: 1, offset: 0 },
        { namespacePrefix: ns, query: FACTS[3]!, limit: 1, offset: 0, queryAdapter: false },
      ]);
      expect(plain[0]).toMatchObject({ key: "f3" });
      expect(plain[0]!.score).toBeGreaterThan(0.999);
      expect(adapted[0]!.score).toBeLessThan(0.999);
      // The extractor's duplicate rule reads these scores: an exact repeat of a stored fact scores 1.
      const neighbours = await findNeighbours(store, ns, [FACTS[3]!], 3, new Set());
      expect(neighbours.find((n) => n.key === "f3")?.score).toBeGreaterThan(0.999);
      await expect(store.search(ns, { query: "x", queryAdapter: "no" as never })).rejects.toThrow(InvalidArgumentError);
    } finally {
      await store.close();
    }
  });

  it("queryAdapter travels over the wire (RemoteStore to the memory server)", () => {
    const op: MemorySearchOperation = { namespacePrefix: ["m"], query: "q", limit: 3, offset: 0, queryAdapter: false };
    expect(operationFromWire(operationToWire(op))).toMatchObject({ queryAdapter: false });
    expect("queryAdapter" in (operationFromWire(operationToWire({ namespacePrefix: ["m"], query: "q", limit: 3, offset: 0 })) as object)).toBe(false);
  });
});

describe("QueryAdapter's optional bias", () => {
  it("adds b before the normalisation; without b the map is q + U·Vᵀq, normalised", async () => {
    const { QueryAdapter } = await import("../../src/embeddings/query-adapter.js");
    // dims 2, rank 1: U = [1, 0]ᵀ, V = [0, 1]ᵀ, so U·Vᵀq = [q1, 0].
    const plain = new QueryAdapter(2, 1, [1, 0], [0, 1]);
    const biased = new QueryAdapter(2, 1, [1, 0], [0, 1], [0, -1]);
    const norm = (x: number[]) => x.map((v) => v / Math.hypot(...x));
    expect(plain.apply([0, 1])).toEqual(norm([1, 1]));
    expect(biased.apply([0, 1])).toEqual(norm([1, 0]));
    expect(biased.apply([1, 0])).toEqual(norm([1, -1]));
  });
});
