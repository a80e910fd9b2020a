import type { Embeddings, } from "@langchain/core/embeddings";
import type { CachedEmbeddings } from "../../embeddings/cached-embeddings.js";
import { InvalidArgumentError } from "../../errors.js";
import { checkIndexConfig, embeddingsOf, type CheckedIndexConfig, type StoreIndexConfig } from "../index-config.js";
import { extractFieldTexts } from "../fields.js";
import type { StoredItem } from "./item-table.js";
import type { HNSWStoreOptions } from "./options.js";
import { embedTexts } from "./prepare-batch.js";
import { hnswSettingsFor } from "./settings.js";
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
  /**
   * Called after each batch with items done and the total.
   * @default undefined (no progress reports)
   */
  onProgress?: (done: number, total: number) => void;
}

/** A new vector index for every item, built aside without touching the state. */
async function buildVectors(args: {
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

/** A checked reindex, built aside: what `HNSWStore.reindex()` switches to. */
export interface Reindexed {
  index: CheckedIndexConfig;
  settings: HnswSettings;
  /** The embedder to use from now on (wrapped in the store's cache unless it has none). */
  embeddings: Embeddings;
  fields: string[];
  vectors: VectorIndex;
  assignments: Map<StoredItem, { label: number; field: string }[]>;
}

/**
 * Checks `options`, then re-embeds every item of `state` with the new index
 * into a fresh vector index, changing nothing. `current` is the store's
 * settings (kept, with the new dims) and `hnsw` its options (used when it had
 * none); `wrap` puts the store's embedding cache around the new embedder,
 * closed again here if embedding fails.
 */
export async function rebuildIndex(
  state: StoreState,
  options: ReindexOptions,
  ctx: { current?: HnswSettings; hnsw: HNSWStoreOptions["hnsw"]; wrap: (embeddings: Embeddings) => Embeddings },
): Promise<Reindexed> {
  if (!options?.index) throw new InvalidArgumentError("reindex needs { index: { dims, embeddings, fields? } }");
  const index = checkIndexConfig(options.index, "reindex index");
  const inner = await embeddingsOf(index);
  const settings: HnswSettings = ctx.current ? { ...ctx.current, dims: index.dims } : hnswSettingsFor(index.dims, ctx.hnsw, index.hnsw);
  const embeddings = ctx.wrap(inner);
  const fields = index.fields ?? ["$"];
  try {
    const rebuilt = await buildVectors({ state, embeddings, settings, fields, batchSize: options.batchSize, onProgress: options.onProgress });
    return { index, settings, embeddings, fields, ...rebuilt };
  } catch (err) {
    if (embeddings !== inner) await (embeddings as CachedEmbeddings).close();
    throw err;
  }
}
