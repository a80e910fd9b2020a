/** How a search with a `query` ranks items (every store's `retrieval` option, and a search's own). */
export type RetrievalMode = "vector" | "keyword" | "hybrid";

/** Every {@link RetrievalMode}. */
export const RETRIEVAL_MODES: readonly RetrievalMode[] = ["vector", "keyword", "hybrid"];
