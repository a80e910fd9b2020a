import { checkFunction, checkNumber, checkOptions } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";

/** Options for {@link cleanup}. */
export interface CleanupOptions {
  /** The prefix whose namespaces are cleaned, each on its own, e.g. `["users"]` (every user) or `["users", "42"]`. */
  namespace: string[];
  /**
   * Drop memories not updated for this many minutes (the unit of TTLs).
   * @default undefined (no age limit)
   */
  maxAge?: number;
  /**
   * Keep at most this many of the newest memories in each namespace.
   * @default undefined (no count limit)
   */
  keepLast?: number;
  /**
   * The clock, for tests.
   * @default Date.now
   */
  now?: () => number;
}

/** What {@link cleanup} removed. */
export interface CleanupReport {
  /** Items removed, by namespace (as JSON). */
  removed: Record<string, number>;
  total: number;
}

/**
 * Retention on demand (run it on a schedule): in every namespace under
 * `namespace`, drops memories older than `maxAge` and keeps at most the
 * `keepLast` newest. For expiry set at write time, use TTLs instead.
 */
export async function cleanup(store: BaseStore, options: CleanupOptions): Promise<CleanupReport> {
  checkOptions(options, "cleanup options", OPTION_KEYS.cleanup, { optional: false });
  const { maxAge, keepLast } = options;
  if (maxAge === undefined && keepLast === undefined) throw new InvalidArgumentError("cleanup needs maxAge, keepLast or both");
  if (maxAge !== undefined && !(Number.isFinite(maxAge) && maxAge >= 0)) throw new InvalidArgumentError(`maxAge must be minutes ≥ 0, got ${String(maxAge)}`);
  if (keepLast !== undefined && !(Number.isInteger(keepLast) && keepLast >= 0)) throw new InvalidArgumentError(`keepLast must be an integer ≥ 0, got ${String(keepLast)}`);
  checkFunction(options.now, "now");
  const now = (options.now ?? Date.now)();
  const groups = new Map<string, Item[]>();
  for (const item of await allItems(store, options.namespace)) {
    const id = JSON.stringify(item.namespace);
    const list = groups.get(id) ?? [];
    list.push(item);
    groups.set(id, list);
  }
  const report: CleanupReport = { removed: {}, total: 0 };
  for (const [id, items] of groups) {
    items.sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime());
    const drop = items.filter(
      (it, rank) => (keepLast !== undefined && rank >= keepLast) || (maxAge !== undefined && now - new Date(it.updatedAt).getTime() > maxAge * 60_000),
    );
    if (drop.length === 0) continue;
    await store.batch(drop.map((it) => ({ namespace: it.namespace, key: it.key, value: null })));
    report.removed[id] = drop.length;
    report.total += drop.length;
  }
  return report;
}

async function allItems(store: BaseStore, prefix: string[]): Promise<Item[]> {
  const out: Item[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await store.search(prefix, { limit: 500, offset });
    out.push(...page);
    if (page.length < 500) return out;
  }
}

/** One retention rule: the namespaces under `namespace` keep at most `keepLast` memories no older than `maxAge` minutes. */
export type RetentionRule = CleanupOptions;

/** Options for {@link scheduleRetention}. */
export interface RetentionScheduleOptions {
  /**
   * Minutes between runs; the first run starts at once.
   * @default 60
   */
  everyMinutes?: number;
  /**
   * Called with each run's failure (a run failing does not stop the schedule).
   * @default console.warn
   */
  onError?: (err: unknown) => void;
  /**
   * Called with the reports of each run.
   * @default undefined
   */
  onRun?: (reports: CleanupReport[]) => void;
}

/** Applies every rule once, in order. */
export async function runRetention(store: BaseStore, rules: RetentionRule[]): Promise<CleanupReport[]> {
  const reports: CleanupReport[] = [];
  for (const rule of rules) reports.push(await cleanup(store, rule));
  return reports;
}

/**
 * Retention on a schedule, per namespace: e.g. episodes kept 90 days, facts
 * at most 500 per user. Runs at once, then every `everyMinutes` on an
 * `unref`'d timer (it never keeps the process alive); runs never overlap.
 * Returns a function that stops the schedule.
 *
 * @example
 * ```ts
 * const stop = scheduleRetention(store, [
 *   { namespace: ["episodes"], maxAge: 90 * 24 * 60 },
 *   { namespace: ["users"], keepLast: 500 },
 * ], { everyMinutes: 60 });
 * ```
 */
export function scheduleRetention(store: BaseStore, rules: RetentionRule[], options: RetentionScheduleOptions = {}): () => void {
  // setInterval holds at most 2^31-1 ms (~35,791 minutes); longer would fire every millisecond.
  checkOptions(options, "scheduleRetention options", OPTION_KEYS.retentionSchedule);
  checkNumber(options.everyMinutes, "everyMinutes", { min: 0, minInclusive: false, max: 35_791 });
  checkFunction(options.onError, "onError");
  checkFunction(options.onRun, "onRun");
  const every = options.everyMinutes ?? 60;
  if (!(Number.isFinite(every) && every > 0)) throw new InvalidArgumentError(`everyMinutes must be a positive number, got ${String(every)}`);
  if (!Array.isArray(rules) || rules.length === 0) throw new InvalidArgumentError("scheduleRetention needs at least one rule");
  let running = false;
  let stopped = false;
  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      options.onRun?.(await runRetention(store, rules));
    } catch (err) {
      (options.onError ?? ((e) => console.warn(`langgraph-hnsw-memory: retention run failed: ${String(e)}`)))(err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), every * 60_000);
  timer.unref();
  void tick();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

