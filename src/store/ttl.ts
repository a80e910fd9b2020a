import { InvalidArgumentError } from "../errors.js";

/**
 * Time-to-live settings, in the shape of LangGraph's Python `TTLConfig` and
 * PostgresStore's `ttl` option.
 */
export interface TTLConfig {
  /**
   * Minutes after which a put expires, when the put does not set its own
   * `ttl`. Undefined means items never expire by default.
   * @default undefined
   */
  defaultTtl?: number;
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

export function validateTtlMinutes(ttl: unknown, what: string): void {
  if (ttl === undefined || ttl === null) return;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0) {
    throw new InvalidArgumentError(`${what} must be a positive number of minutes (or null for no expiry), got ${JSON.stringify(ttl)}`);
  }
  if (ttl > MAX_TTL_MINUTES) {
    throw new InvalidArgumentError(`${what} must be at most ${MAX_TTL_MINUTES} minutes (1,000 years); use null for no expiry, got ${ttl}`);
  }
}

export function validateTtlConfig(ttl: TTLConfig | undefined): void {
  if (!ttl) return;
  validateTtlMinutes(ttl.defaultTtl, "ttl.defaultTtl");
  const s = ttl.sweepIntervalMinutes;
  if (s !== undefined && (typeof s !== "number" || !Number.isFinite(s) || s < 0)) {
    throw new InvalidArgumentError(`ttl.sweepIntervalMinutes must be a number >= 0, got ${JSON.stringify(s)}`);
  }
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
