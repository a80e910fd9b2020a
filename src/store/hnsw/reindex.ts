import type { Embeddings, } from "@langchain/core/embeddings";
import type { StoreIndexConfig } from "../index-config.js";
import { extractFieldTexts } from "../fields.js";
import type { StoredItem } from "./item-table.js";
import { embedTexts } from "./prepare-batch.js";
import type { StoreState } from "./store-state.js";
import { VectorIndex, type HnswSettings } from "./vector-index.js";

/** Options for `HNSWStore.reindex()`. */
export interface ReindexOptions {
  /** The new index config (embedder, dims, fields). */
  index: StoreIndexConfig;
  /**
   * Texts per `embedDocuments` call.
   * @default 64
   */
  batchSize?: number;
  /** Called after each batch with items done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** A new vector index for every item, built aside without touching the state. */
export async function buildVectors(args: {
  state: StoreState;
  embeddings: Embeddings;
  settings: HnswSettings;
  fields: string[];
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<{ vectors: VectorIndex; assignments: Map<StoredItem, { label: number; field: string }[]> }> {
  const { state, embeddings, settings, fields } = args;
  const batchSize = args.batchSize ?? 64;
  const vectors = VectorIndex.create({ ...settings, initialCapacity: Math.max(settings.initialCapacity, state.items.size) });
  const assignments = new Map<StoredItem, { label: number; field: string }[]>();
  const all = [...state.items.items()];
  let done = 0;
  for (let i = 0; i < all.length; i += batchSize) {
    const chunk = all.slice(i, i + batchSize);
    const perItem = chunk.map((item) => (item.index === false ? [] : extractFieldTexts(item.value, item.index ?? fields)));
    const texts = [...new Set(perItem.flat().map((f) => f.text))];
    const byText = await embedTexts(embeddings, texts, settings.dims);
    chunk.forEach((item, j) => {
      assignments.set(
        item,
        perItem[j].map(({ field, text }) => ({ label: vectors.add(byText.get(text)!), field })),
      );
    });
    done += chunk.length;
    args.onProgress?.(done, all.length);
  }
  if (all.length === 0) args.onProgress?.(0, 0);
  return { vectors, assignments };
}
