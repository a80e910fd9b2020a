import type { BaseStore } from "@langchain/langgraph-checkpoint";

/** The item most similar to a text, and its cosine similarity. */
export interface NearestItem {
  key: string;
  /** Cosine similarity of the item's best vector to the text's vector. */
  score: number;
}

/**
 * A store that can compare a text with the items of one namespace by vector
 * alone, without a ranked search: the `remember` tool's duplicate check uses
 * it when the store offers it, and a plain `search` otherwise.
 */
export interface NearestInNamespace {
  /**
   * The item stored exactly under `namespace` (not below it) whose vectors
   * are most similar to `text`, embedded as a document (as a put of it would
   * embed it, so a put that follows reuses the vector). `null` when no item
   * there has a vector; `undefined` when the store does not rank by vectors
   * (no index, or keyword retrieval), so the caller should search instead.
   */
  nearestInNamespace(namespace: string[], text: string): Promise<NearestItem | null | undefined>;
}

/** True when `store` offers {@link NearestInNamespace}. */
export function hasNearestInNamespace(store: BaseStore): store is BaseStore & NearestInNamespace {
  return typeof (store as Partial<NearestInNamespace>).nearestInNamespace === "function";
}
