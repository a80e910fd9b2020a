import { embedderIdentity } from "../../embeddings/identity.js";
import { OPTION_KEYS } from "../../option-keys.js";
import { InvalidOptionError } from "../../errors.js";
import { checkBoolean, checkFunction, checkHasMethods, checkKnownKeys, checkNumber, checkObject, checkOneOf, checkOptionsObject, checkPositiveInt, checkString } from "../../option-checks.js";
import { checkIndexConfig, type CheckedIndexConfig } from "../index-config.js";
import { RETRIEVAL_MODES } from "../retrieval-mode.js";
import { validateTtlConfig } from "../ttl.js";
import type { HNSWStoreOptions } from "./options.js";
import type { IndexManifest } from "./snapshot.js";
import type { HnswSettings, VectorIndex } from "./vector-index.js";

/**
 * Checks what `new HNSWStore(options)` can check without I/O (TTL, index,
 * retrieval, compactLogRatio) and returns the checked index config.
 */
export function checkStoreOptions(options: HNSWStoreOptions): CheckedIndexConfig | undefined {
  checkOptionsObject(options, "HNSWStore options");
  checkKnownKeys(options, OPTION_KEYS.hnswStore);
  checkKnownKeys(options.hnsw, OPTION_KEYS.hnsw, "hnsw.");
  checkKnownKeys(options.ttl, OPTION_KEYS.ttl, "ttl.");
  checkKnownKeys(options.index, OPTION_KEYS.index, "index.");
  checkString(options.path, "path");
  if (options.path?.includes("\0")) throw new InvalidOptionError("path", options.path, "a path without NUL characters");
  validateTtlConfig(options.ttl);
  if (options.index === null) throw new InvalidOptionError("index", null, "an object { dims, embeddings } or undefined");
  const index = options.index ? checkIndexConfig(options.index) : undefined;
  checkOneOf(options.retrieval, "retrieval", RETRIEVAL_MODES);
  checkOneOf(options.durability, "durability", ["fsync", "process"]);
  checkObject(options.hnsw, "hnsw");
  for (const name of ["M", "efConstruction", "efSearch", "initialCapacity"] as const) checkPositiveInt(options.hnsw?.[name], `hnsw.${name}`);
  checkNumber(options.hnsw?.exactScanThreshold, "hnsw.exactScanThreshold", { min: 0, integer: true });
  checkNumber(options.compactAfterBytes, "compactAfterBytes", { min: 0 });
  checkNumber(options.compactLogRatio, "compactLogRatio", { min: 0 });
  checkBoolean(options.embeddingCache, "embeddingCache");
  checkBoolean(options.withoutEmbedder, "withoutEmbedder");
  checkString(options.embedderIdentity, "embedderIdentity");
  checkFunction(options.clock, "clock");
  checkHasMethods(options.logger, "logger", ["warn"]);
  if (options.encryption !== undefined) {
    checkObject(options.encryption, "encryption");
    if (options.encryption.key === undefined || options.encryption.key === null) throw new InvalidOptionError("encryption.key", options.encryption.key, "a 32-byte key, a base64/hex string of one, or a function returning one");
    checkBoolean(options.encryption.migratePlaintext, "encryption.migratePlaintext");
    checkString(options.encryption.ramDir, "encryption.ramDir");
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
