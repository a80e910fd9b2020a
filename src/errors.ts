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
    /** The HTTP status, or 0 when the server could not be reached. */
    readonly status: number,
    /** The error name the server sent, when it sent one. */
    readonly remoteName?: string,
  ) {
    super(message);
  }
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
