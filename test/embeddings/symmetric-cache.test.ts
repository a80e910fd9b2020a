import { promises as fs } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CachedEmbeddings } from "../../src/embeddings/cached-embeddings.js";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { createMemoryTools } from "../../src/graph/tools.js";
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

// FakeEmbeddings is a TEST DOUBLE (bag of words); its query and document vectors are the same.
const symmetricFake = () => Object.assign(new FakeEmbeddings(), { symmetric: true });
const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe("symmetric embedders share query and document cache entries", () => {
  it("USE-lite declares itself symmetric; embedders that do not are kept apart", () => {
    expect(new UniversalSentenceEncoderEmbeddings().symmetric).toBe(true);
    expect(new CachedEmbeddings({ embeddings: new UniversalSentenceEncoderEmbeddings() }).symmetric).toBe(true);
    expect(new CachedEmbeddings({ embeddings: new FakeEmbeddings() }).symmetric).toBe(false);
    expect(new CachedEmbeddings({ embeddings: symmetricFake(), symmetric: false }).symmetric).toBe(false);
  });

  it("a text searched for and then stored is embedded once, and the stored vector reaches the file", async () => {
    const d = tempDir("sym-cache-");
    dirs.push(d);
    const file = `${d.dir}/cache.jsonl`;
    const fake = symmetricFake();
    const cache = new CachedEmbeddings({ embeddings: fake, file });
    const q = await cache.embedQuery("User is vegetarian");
    const [doc] = await cache.embedDocuments(["User is vegetarian"]);
    expect(doc).toEqual(q);
    expect(fake.queryCalls).toEqual(["User is vegetarian"]);
    expect(fake.documentCalls).toEqual([]);
    await cache.embedDocuments(["a stored fact"]);
    await cache.embedQuery("a stored fact");
    expect(fake.queryCalls).toEqual(["User is vegetarian"]);
    await cache.embedQuery("only a question");
    await cache.close();
    // Both documents are on disk (one promoted from a query); the question is not.
    const lines = (await fs.readFile(file, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(3);
    const again = symmetricFake();
    const reopened = new CachedEmbeddings({ embeddings: again, file });
    await reopened.embedDocuments(["User is vegetarian", "a stored fact"]);
    await reopened.embedQuery("only a question");
    expect(again.documentCalls).toEqual([]);
    expect(again.queryCalls).toEqual(["only a question"]);
    await reopened.close();
  });

  it("an asymmetric embedder still embeds a query and a document apart", async () => {
    const fake = new FakeEmbeddings();
    const cache = new CachedEmbeddings({ embeddings: fake });
    await cache.embedQuery("tea");
    await cache.embedDocuments(["tea"]);
    expect(fake.queryCalls).toEqual(["tea"]);
    expect(fake.documentCalls).toEqual([["tea"]]);
  });

  it("the remember tool embeds its text once: the duplicate check's vector serves the put (as a document, on HNSWStore)", async () => {
    const d = tempDir("sym-store-");
    dirs.push(d);
    const fake = symmetricFake();
    const store = new HNSWStore({ path: d.dir, index: { dims: 16, embeddings: fake, fields: ["text"] } });
    try {
      const remember = createMemoryTools({ namespace: ["users", "{user_id}"], store }).find((t) => t.name === "remember")!;
      await remember.invoke({ content: "User is vegetarian" }, { configurable: { user_id: "42" } });
      await remember.invoke({ content: "User lives in Lisbon" }, { configurable: { user_id: "42" } });
      expect(fake.documentCalls.flat()).toEqual(["User is vegetarian", "User lives in Lisbon"]);
      expect(fake.queryCalls).toEqual([]);
      expect((await store.search(["users", "42"], { query: "vegetarian" }))[0].value.text).toBe("User is vegetarian");
    } finally {
      await store.close();
    }
  });
});
