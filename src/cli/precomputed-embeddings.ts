import { Embeddings } from "@langchain/core/embeddings";
import { CliError } from "../errors.js";

/**
 * The embedder an import gives the store: vectors carried by the file (or
 * embedded ahead, a batch at a time, by the real embedder) are looked up by
 * text, so each item can be written in its own batch (to keep its
 * timestamps) without one embedder call per item. It reports the identity of
 * the embedder that made the vectors, which the directory records.
 */
export class PrecomputedEmbeddings extends Embeddings {
  private vectors = new Map<string, number[]>();

  constructor(
    private readonly identity: string,
    private readonly fallback?: Embeddings,
  ) {
    super({});
  }

  embedderIdentity(): string {
    return this.identity;
  }

  /** Adds known vectors, then embeds the `texts` still missing in one call to the fallback. */
  async prepare(known: Map<string, number[]>, texts: Iterable<string>): Promise<void> {
    for (const [t, v] of known) this.vectors.set(t, v);
    const missing = [...new Set(texts)].filter((t) => !this.vectors.has(t));
    if (missing.length === 0) return;
    if (!this.fallback) {
      throw new CliError(`no stored vector for ${missing.length} text(s) (first: ${JSON.stringify(missing[0].slice(0, 60))}); pass --embeddings to embed them`);
    }
    const got = await this.fallback.embedDocuments(missing);
    missing.forEach((t, i) => this.vectors.set(t, got[i]));
  }

  /** Forgets the vectors of the batch just written. */
  clear(): void {
    this.vectors.clear();
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    await this.prepare(new Map(), texts);
    return texts.map((t) => this.vectors.get(t)!);
  }

  async embedQuery(text: string): Promise<number[]> {
    if (!this.fallback) throw new CliError("searching by meaning needs the embedder; pass --embeddings");
    return this.fallback.embedQuery(text);
  }
}
