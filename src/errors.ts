import { InvalidNamespaceError as LangGraphInvalidNamespaceError } from "@langchain/langgraph-checkpoint";

/**
 * Named error classes. Each puts the offending value in its message so that
 * the caller (or the model reading a tool result) can see what to fix.
 */

/** Base class for every error thrown by this package. */
export class MemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * A namespace or namespace label was rejected. It extends LangGraph's own
 * `InvalidNamespaceError`, so code written against any `BaseStore` that
 * catches that class catches this one too.
 */
export class InvalidNamespaceError extends LangGraphInvalidNamespaceError {
  constructor(message: string) {
    super(message);
    this.name = "InvalidNamespaceError";
  }
}

/** A value given to `put` is not a plain JSON object. */
export class InvalidValueError extends MemoryError {}

/** An argument or option was out of range or of the wrong type. */
export class InvalidArgumentError extends MemoryError {}

/** The embedder threw, or returned vectors of the wrong length or with NaN. */
export class EmbeddingError extends MemoryError {}

/** Another process (or another store in this process) holds the directory. */
export class StoreLockedError extends MemoryError {
  constructor(
    message: string,
    /** The directory that is locked. */
    readonly path: string,
    /** The pid recorded in the lock file. */
    readonly pid: number,
  ) {
    super(message);
  }
}

/** A file in the store directory is corrupt or truncated. */
export class CorruptStoreError extends MemoryError {
  constructor(
    message: string,
    /** The file that could not be read. */
    readonly file: string,
  ) {
    super(message);
  }
}

/**
 * The directory was written with other settings (dims, space, embedder) or by
 * a newer format version than this code can read.
 */
export class IncompatibleStoreError extends MemoryError {}

/** The store was used after `close()`. */
export class StoreClosedError extends MemoryError {}

/**
 * A run's config lacks a value that a namespace template needs, such as
 * `user_id`. Thrown before any read or write, so that no other user's memory
 * (and no shared default) is ever touched.
 */
export class MissingConfigError extends MemoryError {}

/**
 * A search filter was rejected: an unknown operator, an object mixing
 * operators with plain keys, or an operand that is not plain JSON (BigInt,
 * a cycle, a Date…). Thrown before any operation of the batch is applied.
 * Extends {@link InvalidArgumentError}, which code may already catch.
 */
export class InvalidFilterError extends InvalidArgumentError {}

/** A redactor threw or returned something other than a string; nothing was written or embedded. */
export class RedactionError extends MemoryError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    if (options && "cause" in options) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** The audit trail's hash chain is broken, or its file is unreadable. */
export class AuditChainError extends MemoryError {}

/**
 * An encrypted store cannot be read with the key given (wrong key, no key for
 * an encrypted directory, a block that fails authentication), or encryption
 * cannot be done safely here. Nothing was changed.
 */
export class EncryptionError extends MemoryError {}

/** A server request carried no valid credentials (HTTP 401). */
export class UnauthorizedError extends MemoryError {}

/** An authenticated caller asked for something outside its scope (HTTP 403). */
export class ForbiddenError extends MemoryError {}

/** A memory or route that does not exist (HTTP 404). */
export class NotFoundError extends MemoryError {}

/** A request body larger than the server's `bodyLimit` (HTTP 413). */
export class PayloadTooLargeError extends MemoryError {}

/**
 * A memory server answered with an error this client cannot map to one of
 * the named classes above (or could not be reached).
 */
export class RemoteStoreError extends MemoryError {
  constructor(
    message: string,
    /** The HTTP status, or 0 when no answer arrived (unreachable, timed out, connection lost). */
    readonly status: number,
    /** The error name the server sent, when it sent one. */
    readonly remoteName?: string,
    options?: {
      /** The underlying failure (a fetch `TypeError`, an abort `DOMException`, a schema error). */
      cause?: unknown;
      /**
       * True when a batch with writes reached the server but no complete
       * answer came back (timed out, connection lost mid-answer, a malformed
       * answer): the writes may have been applied. False when the request
       * never reached it (nothing was applied) or was a read.
       */
      mayHaveApplied?: boolean;
    },
  ) {
    super(message);
    if (options && "cause" in options) (this as { cause?: unknown }).cause = options.cause;
    this.mayHaveApplied = options?.mayHaveApplied ?? false;
  }

  /** See the constructor's `options.mayHaveApplied`. */
  readonly mayHaveApplied: boolean;
}

/**
 * A store opened with `withoutEmbedder: true` was asked for something that
 * needs new vectors (a put of indexed text). The message names the embedder
 * the directory expects.
 */
export class EmbedderRequiredError extends MemoryError {
  constructor(
    message: string,
    /** The embedder identity recorded in the directory's manifest. */
    readonly embedder: string,
  ) {
    super(message);
  }
}

/**
 * A `langgraph-memory` command could not run: a bad argument, a missing
 * directory, a live directory. The CLI prints the message on one line and
 * exits with code 1.
 */
export class CliError extends MemoryError {}

/** Long work (reindex, import, export, migrate, verify) was cancelled by Ctrl-C. */
export class CancelledError extends MemoryError {}

/**
 * A migration or export finished, but re-reading the target found another
 * item count or content checksum than the source had.
 */
export class MigrationVerificationError extends MemoryError {}

/**
 * An optional peer package that a feature needs is not installed (for
 * example `@langchain/openai` for `embed: "openai:text-embedding-3-small"`).
 * The message names the package and the `npm install` line.
 */
export class MissingPeerDependencyError extends MemoryError {
  constructor(
    /** The package that could not be loaded. */
    readonly packageName: string,
    feature: string,
  ) {
    super(`The '${packageName}' package is required to use ${feature}. Install it with: npm install ${packageName}`);
  }
}

/**
 * `memoryStoreFromEnv()` found no memory store configured in the environment,
 * or more than one (`LANGGRAPH_MEMORY_URL`, `DATABASE_URL`,
 * `LANGGRAPH_MEMORY_PATH`). The message names the variables it saw.
 */
export class MemoryStoreConfigError extends MemoryError {}

// --- server and network hardening (issue 21: security) ---

/**
 * A request to a server without credentials (or to its unauthenticated
 * path) carried a `Host` header outside the allowed list: the DNS-rebinding
 * guard (HTTP 421). The message names the host and the allowed ones.
 */
export class HostNotAllowedError extends ForbiddenError {}

/**
 * A route of the memory server declares no access rule (`config.access`),
 * so every request to it is refused (HTTP 403): routes are closed unless
 * they say who may call them.
 */
export class AccessRuleMissingError extends ForbiddenError {}

/** A JSON request body nests arrays/objects deeper than the server's `maxJsonDepth` (HTTP 400). */
export class JsonTooDeepError extends InvalidArgumentError {}

/**
 * One request would return more than the server allows: more results in
 * total than `maxResultsPerRequest` (checked before the store runs), or a
 * response larger than `maxResponseBytes` (HTTP 413). Ask for less (smaller
 * `limit`s, fewer searches per batch) and page with `offset`.
 */
export class ResponseTooLargeError extends MemoryError {}

/**
 * A proposed change to an agent's learned instructions was refused: too
 * long, too large a change, unsafe-looking text, an agent-wide change
 * without a policy or approval, or a version that moved on meanwhile.
 * Nothing was written. `reason` says which rule refused it.
 */
export class ProcedureChangeRejectedError extends MemoryError {
  constructor(
    message: string,
    /** The rule that refused the change. */
    readonly reason: "too_long" | "diff_too_large" | "removes_lines" | "empty" | "unsafe" | "not_approved" | "conflict",
  ) {
    super(message);
  }
}

/**
 * Learned instructions changed between reading them and writing the new
 * version (another process, or another run, wrote first): the version the
 * change was built on is no longer current. Nothing was written; read the
 * current version and propose again. `reason` is `"conflict"`.
 */
export class ProcedureConflictError extends ProcedureChangeRejectedError {
  constructor(message: string) {
    super(message, "conflict");
  }
}

/**
 * A conditional put (`ifValue`) found the stored item's field changed: the
 * whole batch was refused and nothing in it was applied.
 */
export class StoreConflictError extends MemoryError {}

/**
 * A prompt-optimizer run would exceed its budget (`maxCallsPerRun` or
 * `maxCharsPerRun`), e.g. the current instructions alone are larger than the
 * character budget. No model call beyond the budget was made.
 */
export class OptimizerBudgetError extends MemoryError {}

/**
 * A directory given as a store directory holds something else: a file, or a
 * directory with other entries and no store (no `store.json` or
 * `wal-0.log`). `langgraph-memory serve` and `init` create a store only in a
 * new or empty directory, so they never mix a store into other files.
 */
export class NotAStoreDirectoryError extends MemoryError {
  constructor(
    /** The directory that was refused. */
    readonly dir: string,
    reason: string,
  ) {
    super(`${dir} cannot hold a langgraph-hnsw-memory store: ${reason}; pass --path with a new or empty directory, or the directory of an existing store`);
  }
}

// ---- privacy & option checks (issue 21) ----

/** Shows an option's value in a message: JSON where it can, else its type (NaN, Infinity, functions, symbols). */
function describeOptionValue(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol" || typeof value === "bigint") return `a ${typeof value}`;
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return String(value);
    return json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    return `a ${typeof value}`;
  }
}

/**
 * An option of a public constructor or factory has the wrong type or is out
 * of range (`null`, `NaN`, a negative number, `Infinity`, a string where a
 * number belongs). It names the option and the value; nothing was changed.
 */
export class InvalidOptionError extends InvalidArgumentError {
  constructor(
    /** The option's path, as written in the options object (`ttl.defaultTtl`). */
    readonly option: string,
    /** The value that was given. */
    readonly value: unknown,
    /** What the option accepts. */
    expected: string,
  ) {
    super(`option ${option} must be ${expected}, got ${describeOptionValue(value)}`);
  }
}

/**
 * An options object has a key its constructor or factory does not know (a
 * typo such as `hnsw.indexworkers`, or an option of another function).
 * `option` is its path; `suggestion` the known key it is closest to, when
 * one is close. Nothing was built.
 */
export class UnknownOptionError extends InvalidOptionError {
  constructor(
    option: string,
    value: unknown,
    /** The known option the key is closest to (case or one or two letters off), if any. */
    readonly suggestion: string | undefined,
    known: readonly string[],
  ) {
    super(option, value, "a known option");
    this.message = `unknown option ${option}${suggestion ? ` (did you mean ${suggestion}?)` : ""}; known: ${known.join(", ")}`;
  }
}

/**
 * The target of a migration (or an import) was left incomplete: the run
 * that built it was killed before it finished. Open and `verify` refuse it;
 * re-run the migration (it starts over) or delete the directory.
 */
export class IncompleteMigrationError extends MemoryError {
  constructor(
    message: string,
    /** The directory (or store) that holds the partial copy. */
    readonly target: string,
  ) {
    super(message);
  }
}

// ---- PostgreSQL connections (issue 23) ----

/**
 * PostgreSQL could not be reached, or the connection broke (server restart,
 * failover, `pg_terminate_backend`, a refused connection). `mayHaveApplied`
 * says whether a write could have been committed anyway (the connection was
 * lost while `COMMIT` was in flight); otherwise the batch was rolled back
 * and may be retried. The driver's error is the `cause`.
 */
export class DatabaseConnectionError extends MemoryError {
  constructor(
    message: string,
    /** True when the connection was lost during `COMMIT`: the batch may or may not have been applied. */
    readonly mayHaveApplied: boolean,
    options?: { cause?: unknown },
  ) {
    super(message);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * A PostgreSQL statement ran longer than the store's `statementTimeoutMs`
 * (or no connection was free within `connectionTimeoutMs`). Nothing of the
 * batch was applied. The driver's error is the `cause`.
 */
export class DatabaseTimeoutError extends MemoryError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}
