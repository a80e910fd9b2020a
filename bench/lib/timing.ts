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
  const as: number[] = [];
  const bs: number[] = [];
  let aCpu = 0;
  let bCpu = 0;
  for (let q = 0; q < warmup + count; q++) {
    let c0 = cpuMs();
    let t0 = performance.now();
    await a(q);
    const at = performance.now() - t0;
    const ac = cpuMs() - c0;
    c0 = cpuMs();
    t0 = performance.now();
    await b(q);
    const bt = performance.now() - t0;
    const bc = cpuMs() - c0;
    if (q >= warmup) {
      as.push(at);
      bs.push(bt);
      aCpu += ac;
      bCpu += bc;
    }
  }
  const al = latency(as);
  const bl = latency(bs);
  return { a: al, b: bl, ratioP50: al.p50 / bl.p50, ratioMean: al.mean / bl.mean, ratioCpu: aCpu / bCpu };
}
