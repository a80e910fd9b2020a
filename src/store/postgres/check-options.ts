import { InvalidArgumentError, InvalidOptionError } from "../../errors.js";
import { OPTION_KEYS } from "../../option-keys.js";
import { checkBoolean, checkFunction, checkHasMethods, checkKnownKeys, checkNumber, checkObject, checkOneOf, checkOptions, checkPositiveInt, checkString } from "../../option-checks.js";
import { RETRIEVAL_MODES } from "../retrieval-mode.js";
import { validateTtlConfig } from "../ttl.js";
import type { PostgresMemoryStoreOptions } from "./options.js";
import { isIdentifier } from "./sql.js";

/**
 * Checks `new PostgresMemoryStore(options)` without I/O: every option's type
 * and range (a named {@link InvalidOptionError} otherwise).
 */
export function checkPostgresOptions(options: PostgresMemoryStoreOptions): void {
  checkOptions(options, "PostgresMemoryStore options", OPTION_KEYS.postgresStore, { optional: false });
  checkKnownKeys(options.hnsw, OPTION_KEYS.postgresHnsw, "hnsw.");
  checkKnownKeys(options.ttl, OPTION_KEYS.ttl, "ttl.");
  checkKnownKeys(options.index, OPTION_KEYS.index, "index.");
  checkString(options.connectionString, "connectionString");
  if (options.pool !== undefined) checkHasMethods(options.pool, "pool", ["connect", "query"]);
  if (!options.connectionString && !options.pool) throw new InvalidArgumentError("PostgresMemoryStore needs connectionString or pool");
  checkObject(options.poolConfig, "poolConfig");
  checkString(options.schema, "schema");
  checkString(options.tablePrefix, "tablePrefix", true);
  const schema = options.schema ?? "public";
  const prefix = options.tablePrefix ?? "memory_";
  if (!isIdentifier(schema)) throw new InvalidOptionError("schema", schema, "a lower-case SQL identifier");
  if (prefix !== "" && !isIdentifier(prefix)) throw new InvalidOptionError("tablePrefix", prefix, "a lower-case SQL identifier (or empty)");
  validateTtlConfig(options.ttl);
  if (options.index !== undefined) {
    checkObject(options.index, "index");
    checkPositiveInt(options.index.dims, "index.dims");
    if (options.index.dims === undefined) throw new InvalidOptionError("index.dims", undefined, "a positive integer");
    if (!options.index.embeddings) throw new InvalidArgumentError("index.embeddings is required when index is set");
    const f = options.index.fields;
    if (f !== undefined && (!Array.isArray(f) || f.some((x) => typeof x !== "string"))) throw new InvalidOptionError("index.fields", f, "an array of strings");
    checkBoolean(options.index.queryAdapter, "index.queryAdapter");
  }
  checkOneOf(options.retrieval, "retrieval", RETRIEVAL_MODES);
  checkObject(options.hnsw, "hnsw");
  for (const [name, v] of Object.entries(options.hnsw ?? {})) {
    if (name === "exactScanThreshold") checkNumber(v, `hnsw.${name}`, { min: 0, integer: true });
    else if (name === "deferredIndexing") checkBoolean(v, `hnsw.${name}`);
    else if (name === "indexWorkers") checkNumber(v, `hnsw.${name}`, { min: 0, integer: true, max: 64 });
    else checkPositiveInt(v, `hnsw.${name}`);
  }
  checkString(options.embedderIdentity, "embedderIdentity");
  checkBoolean(options.preparedStatements, "preparedStatements");
  checkBoolean(options.sessionSettings, "sessionSettings");
  checkNumber(options.statementTimeoutMs, "statementTimeoutMs", { min: 0 });
  checkNumber(options.connectionRetryMs, "connectionRetryMs", { min: 0 });
  checkNumber(options.maxRetries, "maxRetries", { min: 0, integer: true, max: 1000 });
  checkFunction(options.clock, "clock");
  checkHasMethods(options.logger, "logger", ["warn"]);
}
