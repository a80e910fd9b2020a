/** When sliced work last resumed after {@link yieldToLoop}. */
let resumedAt = performance.now();

/** Work waiting in {@link yieldToLoop} for its turn, first come first served. */
const waiting: (() => void)[] = [];

function resumeNext(): void {
  const resume = waiting.shift();
  if (waiting.length > 0) setImmediate(resumeNext);
  resumedAt = performance.now();
  resume?.();
}

/**
 * Lets the event loop run timers, I/O and other requests (a macrotask turn).
 * Everything that yields here resumes one at a time, one per turn of the
 * loop, in order: two long tasks cut in slices (a batch being prepared and
 * the embedding cache encoding its lines, say) alternate with the loop's
 * other work instead of running their slices back to back in one turn.
 */
export const yieldToLoop = (): Promise<void> =>
  new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(resumeNext);
  });

/**
 * Cuts long synchronous work into slices: check {@link due} often, and when
 * it is true `await pause()`, which yields to the event loop and starts a
 * new slice.
 *
 * A slicer times its slice from its own creation, or, when `shared`, from
 * the last time any work came back from {@link yieldToLoop}: steps that run
 * one after another in the same turn of the event loop (embedding results
 * converted, checked, encoded, logged, applied) then share one slice instead
 * of each taking a whole one. A shared slicer may find its slice already
 * used up (the loop was idle since): it then yields at its first check.
 */
export class TimeSlicer {
  private start = performance.now();

  constructor(
    private readonly sliceMs: number,
    private readonly shared = false,
  ) {}

  /** The current slice has run `sliceMs`. */
  get due(): boolean {
    return performance.now() - (this.shared ? resumedAt : this.start) > this.sliceMs;
  }

  async pause(): Promise<void> {
    await yieldToLoop();
    this.start = performance.now();
  }
}

/**
 * `fn` applied to every item, in order, yielding to the event loop between
 * items whenever `slicer` is due: per-item work over a long list (a large
 * batch) then never holds the loop for much longer than one slice. A list of
 * one item never yields.
 */
export async function mapInSlices<T, U>(items: readonly T[], fn: (item: T, index: number) => U, slicer: TimeSlicer): Promise<U[]> {
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && slicer.due) await slicer.pause();
    out[i] = fn(items[i]!, i);
  }
  return out;
}
