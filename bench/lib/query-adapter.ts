/**
 * An embedder whose documents are the inner one's and whose queries go
 * through a given query adapter (src/embeddings/query-adapter.ts; none:
 * unchanged), for scoring an adapter the store would not pick by itself.
 */
import { Embeddings } from "@langchain/core/embeddings";
import type { QueryAdapter } from "../../src/embeddings/query-adapter.js";

export class AdaptedQueryEmbeddings extends Embeddings {
  constructor(
    private readonly inner: Embeddings,
    private readonly adapter: QueryAdapter | undefined,
  ) {
    super({});
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.inner.embedDocuments(texts);
  }
  async embedQuery(text: string): Promise<number[]> {
    const q = await this.inner.embedQuery(text);
    return this.adapter ? this.adapter.apply(q) : q;
  }
}
