import fs from "node:fs";
import path from "node:path";
import { Embeddings } from "@langchain/core/embeddings";
import { CachedEmbeddings } from "../embeddings/cached-embeddings.js";
import { extractFieldTexts } from "../store/fields.js";
import { readDirectory } from "./directory-reader.js";

/** Stands for the directory's embedder when only its identity is known; never embeds. */
class IdentityOnly extends Embeddings {
  constructor(private readonly identity: string) {
    super({});
  }
  embedderIdentity(): string {
    return this.identity;
  }
  async embedDocuments(): Promise<number[][]> {
    throw new Error("the embedder is not loaded");
  }
  async embedQuery(): Promise<number[]> {
    throw new Error("the embedder is not loaded");
  }
}

/**
 * Rewrites the directory's embedding cache so that it keeps only the
 * vectors of texts that live items still index: after `forget`, no vector
 * of the forgotten texts stays on disk. Call while holding the directory.
 */
export async function purgeEmbeddingCache(dir: string): Promise<void> {
  const file = path.join(dir, "embedding-cache.jsonl");
  if (!fs.existsSync(file)) return;
  const view = readDirectory(dir);
  const idx = view.manifest?.index;
  if (!idx) {
    fs.rmSync(file, { force: true });
    return;
  }
  const texts: string[] = [];
  for (const item of view.items) {
    if (item.index === false) continue;
    for (const f of extractFieldTexts(item.value, item.index ?? idx.fields)) texts.push(f.text);
  }
  const cache = new CachedEmbeddings({ embeddings: new IdentityOnly(idx.embedder), file });
  await cache.retainDocuments(texts);
  await cache.close();
}
