import type { Embeddings } from "@langchain/core/embeddings";
import { indexEmbedder, resolveEmbeddings, toEmbeddings, type EmbeddingsLike } from "../embeddings/resolve-embeddings.js";
import { InvalidArgumentError } from "../errors.js";

/** PostgresStore-style HNSW names inside `index` (aliases of the store's own `hnsw` options). */
export interface IndexHnswConfig {
  /**
   * Graph degree (alias of `hnsw.M`).
   * @default 16
   */
  m?: number;
  /**
   * Build-time beam width (alias of `hnsw.efConstruction`).
   * @default 200
   */
  efConstruction?: number;
  /**
   * Search-time beam width (alias of `hnsw.efSearch`).
   * @default 200
   */
  ef?: number;
}

/**
 * A store's semantic index (shared by every store of this package: the
 * PostgreSQL store should take the same type and normalise it with
 * {@link checkIndexConfig} and {@link embeddingsOf}): InMemoryStore's `IndexConfig` (`{ dims,
 * embeddings, fields }`), plus the names LangGraph's PostgresStore and
 * `langgraph.json` use (`embed`, `hnsw: { m, efConstruction, ef }`).
 */
export interface StoreIndexConfig {
  /** Number of dimensions of the embedder's vectors. */
  dims: number;
  /**
   * The embedder: an object with `embedDocuments`/`embedQuery` (any copy of
   * `@langchain/core`, or none), a function `(texts) => Promise<number[][]>`,
   * or a `"provider:model"` string such as `"openai:text-embedding-3-small"`
   * (needs the optional `@langchain/openai`; resolved when the store opens).
   * @default undefined (one of `embeddings` or `embed` is required)
   */
  embeddings?: EmbeddingsLike;
  /**
   * Alias of `embeddings` (the name PostgresStore and `langgraph.json` use).
   * @default undefined
   */
  embed?: EmbeddingsLike;
  /**
   * JSON paths of the value to embed.
   * @default ["$"]
   */
  fields?: string[];
  /**
   * HNSW tuning with PostgresStore's names; the store's own `hnsw` option
   * wins where both are given.
   * @default undefined
   */
  hnsw?: IndexHnswConfig;
  /**
   * Whether search queries go through the query adapters shipped for the
   * bundled USE-lite embedder (small linear maps, trained on questions and
   * the facts that answer them, applied to the query vector only: stored
   * vectors are unchanged, so switching needs no reindex): facts searches
   * through the facts adapter, episode searches (`searchEpisodes`) through
   * the episodes adapter; a search's own `queryAdapter` (`"facts"`,
   * `"episodes"`, `true` or `false`) picks one. Other embedders never use
   * them. `false` ranks by USE-lite's own query vectors, whatever a search
   * asks.
   * @default true
   */
  queryAdapter?: boolean;
}

/** An index config checked once: its embedder ready, or a string to resolve on open. */
export interface CheckedIndexConfig {
  dims: number;
  fields?: string[];
  /** The embedder, when it needed no loading. */
  embeddings?: Embeddings;
  /** A `"provider:model"` string still to resolve. */
  pending?: string;
  /** `hnsw` in the store's own names (`M`, `efConstruction`, `efSearch`). */
  hnsw: { M?: number; efConstruction?: number; efSearch?: number };
  /** `index.queryAdapter` (true unless it was false). */
  queryAdapter: boolean;
}

function positiveInt(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) <= 0) throw new InvalidArgumentError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return value as number;
}

/**
 * Validates `index` and normalises its aliases (`embed`, `hnsw.m`/`ef`).
 * @throws InvalidArgumentError for bad dims, a missing or malformed embedder, or bad HNSW numbers
 */
export function checkIndexConfig(index: StoreIndexConfig, where = "index"): CheckedIndexConfig {
  if (!index || typeof index !== "object") throw new InvalidArgumentError(`${where} must be an object { dims, embeddings }`);
  const { dims } = index;
  if (!Number.isInteger(dims) || dims <= 0) throw new InvalidArgumentError(`${where}.dims must be a positive integer, got ${JSON.stringify(dims)}`);
  const embedder = indexEmbedder(index);
  if (embedder === undefined) throw new InvalidArgumentError(`${where}.embeddings (or ${where}.embed) is required when ${where} is set`);
  if (index.fields !== undefined && (!Array.isArray(index.fields) || index.fields.some((f) => typeof f !== "string"))) {
    throw new InvalidArgumentError(`${where}.fields must be an array of strings, got ${JSON.stringify(index.fields)}`);
  }
  const h = index.hnsw ?? {};
  const hnsw = {
    M: positiveInt(h.m, `${where}.hnsw.m`),
    efConstruction: positiveInt(h.efConstruction, `${where}.hnsw.efConstruction`),
    efSearch: positiveInt(h.ef, `${where}.hnsw.ef`),
  };
  if (index.queryAdapter !== undefined && typeof index.queryAdapter !== "boolean") {
    throw new InvalidArgumentError(`${where}.queryAdapter must be a boolean, got ${JSON.stringify(index.queryAdapter)}`);
  }
  const base = { dims, fields: index.fields, hnsw, queryAdapter: index.queryAdapter !== false };
  return typeof embedder === "string" ? { ...base, pending: embedder } : { ...base, embeddings: toEmbeddings(embedder) };
}

/** The checked config's embedder, loading a `"provider:model"` string's package when needed. */
export async function embeddingsOf(config: CheckedIndexConfig): Promise<Embeddings> {
  if (config.embeddings) return config.embeddings;
  config.embeddings = await resolveEmbeddings(config.pending!);
  config.pending = undefined;
  return config.embeddings;
}
