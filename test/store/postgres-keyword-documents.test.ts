/**
 * KeywordDocuments (src/store/postgres/keyword-documents.ts): a document is kept per item and row
 * version, a new version is a miss, and past the bound the least recently used go first.
 */
import { describe, expect, it } from "vitest";
import { KeywordDocuments } from "../../src/store/postgres/keyword-documents.js";

const doc = (term: string) => ({ terms: new Map([[term, 1]]), length: 1 });

describe("KeywordDocuments", () => {
  it("keeps a document per item and row version; another version, or none kept, is a miss; null is kept as null", () => {
    const docs = new KeywordDocuments();
    docs.set("a", "100", doc("tea"));
    docs.set("b", "101", null);
    expect(docs.get("a", "100")).toEqual(doc("tea"));
    expect(docs.get("a", "102")).toBeUndefined();
    expect(docs.get("b", "101")).toBeNull();
    expect(docs.get("c", "100")).toBeUndefined();
    docs.set("a", "102", doc("coffee"));
    expect(docs.get("a", "100")).toBeUndefined();
    expect(docs.get("a", "102")).toEqual(doc("coffee"));
    docs.clear();
    expect(docs.size).toBe(0);
  });

  it("past its bound drops the least recently used tenth at once", () => {
    const docs = new KeywordDocuments(20);
    for (let i = 0; i < 20; i++) docs.set(`k${i}`, "1", doc(`t${i}`));
    // k0 and k1 used again: k2 and k3 are now the least recently used.
    docs.get("k0", "1");
    docs.get("k1", "1");
    docs.set("k20", "1", doc("t20"));
    expect(docs.size).toBe(19);
    expect(docs.get("k2", "1")).toBeUndefined();
    expect(docs.get("k3", "1")).toBeUndefined();
    for (const k of ["k0", "k1", "k4", "k19", "k20"]) expect(docs.get(k, "1")).toBeDefined();
  });
});
