/** Lets the event loop run timers, I/O and other requests (a macrotask turn). */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Cuts long synchronous work into slices: check {@link due} often, and when
 * it is true `await pause()`, which yields to the event loop and starts a
 * new slice.
 */
export class TimeSlicer {
  private start = performance.now();

  constructor(private readonly sliceMs: number) {}

  /** The current slice has run `sliceMs`. */
  get due(): boolean {
    return performance.now() - this.start > this.sliceMs;
  }

  async pause(): Promise<void> {
    await yieldToLoop();
    this.start = performance.now();
  }
}
