import { embedderIdentity } from "../../embeddings/identity.js";
import { InvalidArgumentError } from "../../errors.js";
import { checkIndexConfig, type CheckedIndexConfig } from "../index-config.js";
import { validateTtlConfig } from "../ttl.js";
import type { HNSWStoreOptions } from "./options.js";
import type { IndexManifest } from "./snapshot.js";
import type { HnswSettings, VectorIndex } from "./vector-index.js";

/**
 * Checks what `new HNSWStore(options)` can check without I/O (TTL, index,
 * retrieval, compactLogRatio) and returns the checked index config.
 */
export function checkStoreOptions(options: HNSWStoreOptions): CheckedIndexConfig | undefined {
  validateTtlConfig(options.ttl);
  const index = options.index ? checkIndexConfig(options.index) : undefined;
  if (options.retrieval && !["vector", "keyword", "hybrid"].includes(options.retrieval)) {
    throw new InvalidArgumentError(`retrieval must be "vector", "keyword" or "hybrid", got ${JSON.stringify(options.retrieval)}`);
  }
  if (options.compactLogRatio !== undefined && !(typeof options.compactLogRatio === "number" && options.compactLogRatio >= 0 && Number.isFinite(options.compactLogRatio))) {
    throw new InvalidArgumentError(`compactLogRatio must be a finite number >= 0, got ${JSON.stringify(options.compactLogRatio)}`);
  }
  return index;
}

/** Defaults of {@link HNSWStoreOptions.hnsw}. */
export const DEFAULT_HNSW = { M: 16, efConstruction: 200, efSearch: 200, initialCapacity: 16384, exactScanThreshold: 2000 };

function defined<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The vector index settings for `dims`, from the caller's `hnsw` options,
 * then `index.hnsw` (PostgresStore names, already mapped), then the defaults.
 */
export function hnswSettingsFor(dims: number, options: HNSWStoreOptions["hnsw"], fromIndex?: CheckedIndexConfig["hnsw"]): HnswSettings {
  const h = { ...DEFAULT_HNSW, ...defined(fromIndex), ...defined(options) };
  return { space: "cosine", dims, M: h.M, efConstruction: h.efConstruction, efSearch: h.efSearch, initialCapacity: h.initialCapacity, seed: 100 };
}

/**
 * The index record a snapshot carries: the store's `config` and settings
 * (with the tuning of `vectors` when given), or, for a directory opened
 * `withoutEmbedder`, the index it recorded. Null without an index.
 */
export function indexManifestFor(args: {
  config?: CheckedIndexConfig;
  storedIndex?: IndexManifest;
  settings?: HnswSettings;
  embedderIdentity?: string;
  vectors?: VectorIndex;
}): IndexManifest | null {
  const { config, storedIndex, vectors } = args;
  if (!config && storedIndex) {
    const v = vectors?.settings;
    return v ? { ...storedIndex, M: v.M, efConstruction: v.efConstruction, efSearch: v.efSearch } : storedIndex;
  }
  if (!config || !args.settings) return null;
  const s = vectors?.settings ?? args.settings;
  return {
    space: "cosine",
    dims: config.dims,
    M: s.M,
    efConstruction: s.efConstruction,
    efSearch: s.efSearch,
    // Resolved in HNSWStore's open before any manifest is needed.
    embedder: args.embedderIdentity ?? embedderIdentity(config.embeddings!),
    fields: config.fields ?? ["$"],
  };
}

/** Longest stretch a batch's apply (or a compaction's scan) runs before it yields to the event loop. */
export const APPLY_SLICE_MS = 10;
