/**
 * One default index everywhere: a directory made by `langgraph-memory init`
 * (or `serve`) records the package's default index, `localMemoryIndex()`
 * (the real bundled USE-lite embedder on `["text"]`), and the quick start's
 * `index`, `localMemoryIndex()` and an `index` without `fields` all open it
 * and recall by meaning. A store opened without `index` on a directory with
 * vectors is refused with the exact `index` to pass.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openOrCreateStore } from "../../src/cli/open-store.js";
import { HNSWStore, IncompatibleStoreError, localMemoryIndex, UniversalSentenceEncoderEmbeddings } from "../../src/index.js";
import { readManifest } from "../../src/store/hnsw/snapshot.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

vi.setConfig({ testTimeout: 120_000 });

let tmp: { dir: string; cleanup: () => void };
beforeAll(() => {
  tmp = tempDir("default-index-");
});
afterAll(() => tmp.cleanup());

/** A store directory as `langgraph-memory init` creates it (the command's own code path). */
async function initDir(name: string): Promise<string> {
  const dir = path.join(tmp.dir, name);
  const { store, created } = await openOrCreateStore(dir, undefined);
  expect(created).toBe(true);
  await store.close();
  return dir;
}

describe("the default index", () => {
  it("init records USE-lite on [\"text\"]; the quick start's index, localMemoryIndex() and an index without fields all open it", async () => {
    const dir = await initDir("memory");
    expect(readManifest(dir)?.index).toMatchObject({ dims: 512, fields: ["text"], embedder: expect.stringMatching(/^UniversalSentenceEncoderEmbeddings:/) });

    // The README quick start's literal config.
    const quick = new HNSWStore({ path: dir, index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } });
    await quick.put(["users", "ada"], "diet", { text: "User is vegetarian." });
    await quick.put(["users", "ada"], "pet", { text: "User has a cat named Miso." });
    await quick.close();

    const preset = new HNSWStore({ path: dir, index: localMemoryIndex() });
    const [hit] = await preset.search(["users", "ada"], { query: "what food does she eat?", limit: 1 });
    expect(hit.key).toBe("diet");
    expect(hit.score).toBeGreaterThan(0);
    await preset.close();

    // No fields given: the directory's own (["text"]), not ["$"].
    const bare = new HNSWStore({ path: dir, index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings() } });
    await bare.put(["users", "ada"], "city", { text: "User lives in Lisbon.", note: "said on Monday" });
    expect((await bare.search(["users", "ada"], { query: "Where does the user live?", limit: 1 }))[0].key).toBe("city");
    await bare.close();
    expect(readManifest(dir)?.index?.fields).toEqual(["text"]);
  });

  it("an index without fields on a new directory is LangGraph's [\"$\"], and later opens without fields adopt what it recorded", async () => {
    const dir = path.join(tmp.dir, "whole-value");
    const embeddings = new FakeEmbeddings({ dims: 8 });
    const first = new HNSWStore({ path: dir, index: { dims: 8, embeddings } });
    await first.put(["a"], "k", { text: "x" });
    await first.close();
    expect(readManifest(dir)?.index?.fields).toEqual(["$"]);
    const again = new HNSWStore({ path: dir, index: { dims: 8, embeddings } });
    expect(await again.get(["a"], "k")).not.toBeNull();
    await again.close();
    // An explicit, different choice is still refused: the vectors were built from other text.
    const other = new HNSWStore({ path: dir, index: { dims: 8, embeddings, fields: ["text"] } });
    await expect(other.open()).rejects.toThrow(/embedded the fields \["\$"\], but index.fields is \["text"\]/);
  });

  it("no index on a directory with USE-lite vectors: the error gives the index to pass", async () => {
    const dir = await initDir("refused");
    const filled = new HNSWStore({ path: dir, index: localMemoryIndex() });
    await filled.put(["users", "ada"], "diet", { text: "User is vegetarian." });
    await filled.close();
    const before = fs.readdirSync(dir).sort();
    const err = await new HNSWStore({ path: dir }).open().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleStoreError);
    const message = (err as Error).message;
    expect(message).toContain("this HNSWStore was given no `index` (without one it has no embedder at all)");
    expect(message).toContain('index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } (localMemoryIndex() builds exactly that)');
    expect(message).toContain("withoutEmbedder: true");
    expect(fs.readdirSync(dir).sort()).toEqual(before);
  });
});
