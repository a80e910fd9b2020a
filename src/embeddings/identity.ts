
/**
 * An embedder that states its own identity, for wrappers such as
 * `CachedEmbeddings` that must report the embedder they wrap.
 */
export interface IdentifiedEmbeddings {
  embedderIdentity(): string;
}

function hasOwnIdentity(e: unknown): e is IdentifiedEmbeddings {
  return typeof (e as Partial<IdentifiedEmbeddings>).embedderIdentity === "function";
}

/**
 * A stable string naming which embedder (class, model and output size) built
 * a vector, such as `"OpenAIEmbeddings:text-embedding-3-small"` or
 * `"UniversalSentenceEncoderEmbeddings:universal-sentence-encoder-lite@0.2.0"`.
 *
 * The store records it so that opening a directory with another embedder is
 * caught, and the embedding cache keys vectors by it. The model is read from
 * the `model` field (OpenAI, Ollama, Cohere, Mistral, …) or the older
 * `modelName`; a numeric `dimensions` field (OpenAI's text-embedding-3
 * models can shorten their output) is appended as `@<dimensions>`.
 */
export function embedderIdentity(embeddings: object): string {
  if (hasOwnIdentity(embeddings)) return embeddings.embedderIdentity();
  const fields = embeddings as unknown as { model?: unknown; modelName?: unknown; dimensions?: unknown };
  const model =
    typeof fields.model === "string" ? fields.model : typeof fields.modelName === "string" ? fields.modelName : "";
  const dims = typeof fields.dimensions === "number" ? `@${fields.dimensions}` : "";
  return `${embeddings.constructor.name}:${model}${dims}`;
}
