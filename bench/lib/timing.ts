import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { latency } from "./vectors.js";

export type Latency = ReturnType<typeof latency>;

/** CPU time of this process in ms (all its threads): less swayed than wall time by other jobs on a loaded machine. */
export const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Bytes of every file below `dir`. */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? await dirBytes(p) : (await stat(p)).size;
  }
  return total;
}

/**
 * Runs `run(q)` untimed for q in [0, warmup), then timed for q in
 * [from, from + count) (`from` defaults to `warmup`, so warm-up and timed
 * queries differ): the latency of the timed runs, and what each returned.
 */
export async function timeRuns<T>(count: number, run: (q: number) => Promise<T> | T, options: { warmup: number; from?: number }): Promise<{ lat: Latency; results: T[] }> {
  const { warmup, from = warmup } = options;
  for (let q = 0; q < warmup; q++) await run(q);
  const samples: number[] = [];
  const results: T[] = [];
  for (let q = from; q < from + count; q++) {
    const t = performance.now();
    results.push(await run(q));
    samples.push(performance.now() - t);
  }
  return { lat: latency(samples), results };
}

/** What {@link interleave} measured: both sides' latency and their ratios (a over b). */
export interface Interleaved {
  a: Latency;
  b: Latency;
  ratioP50: number;
  ratioMean: number;
  /** CPU time of a over CPU time of b. */
  ratioCpu: number;
}

/**
 * Times `a(q)` and `b(q)` alternately for q in [0, warmup + count), keeping
 * the last `count`: load from other processes then hits both alike.
 */
export async function interleave(count: number, warmup: number, a: (q: number) => unknown, b: (q: number) => unknown): Promise<Interleaved> {
  const [ra, rb] = await interleaveMany(count, warmup, [a, b]);
  return { a: ra!.lat, b: rb!.lat, ratioP50: ra!.lat.p50 / rb!.lat.p50, ratioMean: ra!.lat.mean / rb!.lat.mean, ratioCpu: ra!.cpuMs / rb!.cpuMs };
}

/**
 * {@link interleave} for any number of runs: each query goes to every run in
 * turn. With `rotate`, query q starts at run `q % runs.length`, so no run
 * always goes first (or always follows the same one): when runs share
 * caches, none of them is always the one that finds them warm.
 */
export async function interleaveMany(count: number, warmup: number, runs: ((q: number) => unknown)[], options: { rotate?: boolean } = {}): Promise<{ lat: Latency; cpuMs: number }[]> {
  const samples = runs.map(() => [] as number[]);
  const cpu = runs.map(() => 0);
  for (let q = 0; q < warmup + count; q++) {
    for (let step = 0; step < runs.length; step++) {
      const r = options.rotate ? (q + step) % runs.length : step;
      const c0 = cpuMs();
      const t0 = performance.now();
      await runs[r]!(q);
      const t = performance.now() - t0;
      const c = cpuMs() - c0;
      if (q >= warmup) {
        samples[r]!.push(t);
        cpu[r]! += c;
      }
    }
  }
  return samples.map((xs, r) => ({ lat: latency(xs), cpuMs: cpu[r]! }));
}
