import { InvalidNamespaceError as LangGraphInvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { CorruptStoreError, IncompatibleStoreError, InvalidArgumentError, InvalidValueError, MissingConfigError, StoreClosedError } from "../errors.js";

/** Where a memory capability (extractor, optimizer) reports what it could not do. Defaults to `console`. */
export interface MemoryLogger {
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** A background run (an extraction, an optimizer run) that still failed after every retry. */
export interface BackgroundFailure {
  /** The debounce key: the run's namespace and thread or scope. */
  key: string;
  error: unknown;
  attempts: number;
  at: Date;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `1 attempt`, `3 attempts`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** True for a store that was closed (ours, or any store's error of that name). */
export function isStoreClosed(error: unknown): boolean {
  return error instanceof StoreClosedError || (error as { name?: unknown })?.name === "StoreClosedError";
}

/**
 * False for errors that another attempt cannot fix: a closed store, bad
 * arguments, values or namespaces, a missing config value, a corrupt or
 * incompatible store. Model and network errors are retried.
 */
export function isRetryable(error: unknown): boolean {
  if (isStoreClosed(error)) return false;
  return !(
    error instanceof InvalidArgumentError ||
    error instanceof InvalidValueError ||
    error instanceof LangGraphInvalidNamespaceError ||
    error instanceof MissingConfigError ||
    error instanceof CorruptStoreError ||
    error instanceof IncompatibleStoreError
  );
}

/**
 * Runs `work`, retrying with exponential backoff (`delayMs`, 2×, 4×…) up to
 * `attempts` times in all. Errors that {@link isRetryable} rejects are thrown
 * at once.
 */
export async function withRetry<T>(work: () => Promise<T>, attempts: number, delayMs: number, onRetry?: (error: unknown, attempt: number) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
      onRetry?.(error, attempt);
      await sleep(delayMs * 2 ** (attempt - 1));
    }
  }
}

interface Waiting<T> {
  timer: ReturnType<typeof setTimeout>;
  run: () => Promise<T>;
  onStart?: (work: Promise<unknown>) => void;
  promise: Promise<T | undefined>;
  resolve: (value: T | undefined) => void;
}

/** How a {@link DebouncedScheduler} retries and what it logs. */
export interface BackgroundRunOptions {
  /** Attempts of a job before it is logged as failed. */
  attempts: number;
  /** Delay before the first retry (doubles after each). */
  retryDelayMs: number;
  logger: MemoryLogger;
  /** What a job is, for log lines ("memory extractor: background extraction"). */
  what: string;
  /** What happens to a job's input when it fails for good ("its messages stay unread…"). */
  afterFailure: string;
  /** The line logged when a job found its store closed. */
  storeClosed: (key: string) => string;
}

/**
 * Debounces background jobs per key (one key per namespace and thread): a
 * new job for a key replaces the one still waiting and restarts its timer.
 * Jobs for one key never overlap; a job scheduled while another runs starts
 * after it. Failures are retried, then logged and kept in `failures`; the
 * returned promises never reject.
 *
 * Timers are not `unref`'d: a process with work waiting stays alive for at
 * most the debounce delay (plus retries). Call `flush()` before exit to run
 * everything at once.
 */
export class DebouncedScheduler<T> {
  readonly failures: BackgroundFailure[] = [];
  private readonly waiting = new Map<string, Waiting<T>>();
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly options: BackgroundRunOptions) {}

  /**
   * Schedules `run` for `key` after `delayMs` of quiet; resolves with its
   * result (undefined if it failed). `onStart` receives the job's promise when
   * it starts running (not while it waits out the debounce).
   */
  schedule(key: string, delayMs: number, run: () => Promise<T>, onStart?: (work: Promise<unknown>) => void): Promise<T | undefined> {
    const existing = this.waiting.get(key);
    if (existing) {
      clearTimeout(existing.timer);
      existing.run = run;
      existing.onStart = onStart;
      existing.timer = setTimeout(() => this.start(key), delayMs);
      return existing.promise;
    }
    let resolve!: (value: T | undefined) => void;
    const promise = new Promise<T | undefined>((r) => (resolve = r));
    const timer = setTimeout(() => this.start(key), delayMs);
    this.waiting.set(key, { timer, run, onStart, promise, resolve });
    return promise;
  }

  /** Keeps a failed job in `failures` (the newest 100). */
  recordFailure(key: string, error: unknown, attempts: number): void {
    this.failures.push({ key, error, attempts, at: new Date() });
    if (this.failures.length > 100) this.failures.splice(0, this.failures.length - 100);
  }

  /** Starts `key`'s waiting job now instead of after its quiet period (no-op when none waits). */
  startNow(key: string): void {
    const job = this.waiting.get(key);
    if (!job) return;
    clearTimeout(job.timer);
    this.start(key);
  }

  /** Number of jobs waiting or running. */
  get size(): number {
    return this.waiting.size + this.running.size;
  }

  /** Starts every waiting job now and resolves when all work has settled. */
  async flush(): Promise<void> {
    while (this.waiting.size > 0 || this.running.size > 0) {
      for (const [key, job] of [...this.waiting]) {
        clearTimeout(job.timer);
        this.start(key);
      }
      await Promise.all([...this.running.values()]);
    }
  }

  private start(key: string): void {
    const job = this.waiting.get(key);
    if (!job) return;
    this.waiting.delete(key);
    const previous = this.running.get(key) ?? Promise.resolve();
    const { attempts, retryDelayMs, logger, what, afterFailure, storeClosed } = this.options;
    const work = previous
      .then(() =>
        withRetry(job.run, attempts, retryDelayMs, (error, attempt) =>
          logger.warn(`${what} for ${key} failed (attempt ${attempt} of ${attempts}), retrying`, error),
        ),
      )
      .then(
        (result) => job.resolve(result),
        (error: unknown) => {
          this.recordFailure(key, error, isRetryable(error) ? attempts : 1);
          if (isStoreClosed(error)) logger.error(storeClosed(key));
          else logger.error(`${what} for ${key} failed after ${plural(isRetryable(error) ? attempts : 1, "attempt")}; ${afterFailure}`, error);
          job.resolve(undefined);
        },
      );
    this.running.set(key, work);
    job.onStart?.(work);
    void work.then(() => {
      if (this.running.get(key) === work) this.running.delete(key);
    });
  }
}
