import type { IndexConfig } from "@langchain/langgraph-checkpoint";
import { UniversalSentenceEncoderEmbeddings } from "./universal-sentence-encoder.js";

/**
 * The value fields the package's memories keep their text in (facts,
 * episodes and learned instructions all store `{ text, … }`), and so the
 * fields the package's default index embeds.
 */
export const MEMORY_TEXT_FIELDS: readonly string[] = Object.freeze(["text"]);

/**
 * The package's default vector index: the bundled Universal Sentence
 * Encoder lite (512 dimensions, offline, no key), embedding each memory's
 * `text`. It is what `langgraph-memory init` and `serve` record in a new
 * directory and what `memoryStoreFromEnv()` uses, so a store created by one
 * opens in the others.
 *
 * @example
 * ```ts
 * const store = new HNSWStore({ path: "./memory", index: localMemoryIndex() });
 * ```
 */
export function localMemoryIndex(): IndexConfig & { dims: 512; fields: string[] } {
  return { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: [...MEMORY_TEXT_FIELDS] };
}
