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
 * A migration or export finished, but re-reading the target found another
 * item count or content checksum than the source had.
 */
export class MigrationVerificationError extends MemoryError {}
