import { InvalidArgumentError, InvalidOptionError } from "../errors.js";
import { checkNumber } from "../option-checks.js";

/**
 * Time-to-live settings, in the shape of LangGraph's Python `TTLConfig` and
 * PostgresStore's `ttl` option.
 */
export interface TTLConfig {
  /**
   * Minutes after which a put expires, when the put does not set its own
   * `ttl`. Undefined or `null` means items never expire by default (as a
   * per-put `ttl: null` does).
   * @default undefined
   */
  defaultTtl?: number | null;
  /**
   * Whether a get or search that returns an item restarts its TTL.
   * @default true
   */
  refreshOnRead?: boolean;
  /**
   * How often the background sweeper deletes expired items, in minutes. The
   * sweeper's timer never keeps the process alive. 0 disables it (expired
   * items are still never returned; call `sweepExpired()` yourself).
   * @default 60
   */
  sweepIntervalMinutes?: number;
}

/**
 * The longest TTL accepted: 1,000 years, in minutes. Longer ones would put
 * the expiry time beyond what a Date (and the log) can represent; use
 * `ttl: null` for "never".
 */
export const MAX_TTL_MINUTES = 525_960_000;

/** The longest sweep interval a Node timer can hold (2^31-1 ms), in minutes. */
export const MAX_SWEEP_INTERVAL_MINUTES = 35_791;

export function validateTtlMinutes(ttl: unknown, what: string): void {
  if (ttl === undefined || ttl === null) return;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0) {
    throw new InvalidArgumentError(`${what} must be a positive number of minutes (or null for no expiry), got ${JSON.stringify(ttl)}`);
  }
  if (ttl > MAX_TTL_MINUTES) {
    throw new InvalidArgumentError(`${what} must be at most ${MAX_TTL_MINUTES} minutes (1,000 years); use null for no expiry, got ${ttl}`);
  }
}

/**
 * The TTL (minutes) a put gets: its own `ttl` (`null` = never expires), else
 * the store's `defaultTtl` (`null` or undefined = never expires).
 */
export function effectiveTtl(putTtl: number | null | undefined, defaultTtl: number | null | undefined): number | undefined {
  if (putTtl === null) return undefined;
  const ttl = putTtl ?? defaultTtl;
  return typeof ttl === "number" ? ttl : undefined;
}

export function validateTtlConfig(ttl: TTLConfig | undefined): void {
  if (ttl === undefined) return;
  if (ttl === null || typeof ttl !== "object" || Array.isArray(ttl)) {
    throw new InvalidOptionError("ttl", ttl, "an object ({ defaultTtl, refreshOnRead, sweepIntervalMinutes }) or undefined");
  }
  if (ttl.refreshOnRead !== undefined && typeof ttl.refreshOnRead !== "boolean") {
    throw new InvalidOptionError("ttl.refreshOnRead", ttl.refreshOnRead, "a boolean");
  }
  const d = ttl.defaultTtl;
  if (d !== undefined && d !== null && !(typeof d === "number" && Number.isFinite(d) && d > 0 && d <= MAX_TTL_MINUTES)) {
    throw new InvalidOptionError("ttl.defaultTtl", d, `a number of minutes > 0 and <= ${MAX_TTL_MINUTES}, or null for no expiry`);
  }
  // setInterval takes at most 2^31-1 ms; a longer interval would fire every millisecond.
  checkNumber(ttl.sweepIntervalMinutes, "ttl.sweepIntervalMinutes", { min: 0, max: MAX_SWEEP_INTERVAL_MINUTES });
}

/** Runs `sweep` every `minutes`, on a timer that does not hold the process open. */
export function startSweeper(minutes: number, sweep: () => Promise<unknown>, onError: (err: unknown) => void): () => void {
  if (!(minutes > 0)) return () => {};
  const timer = setInterval(() => {
    sweep().catch(onError);
  }, minutes * 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
