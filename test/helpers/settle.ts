/** Tracks whether a promise has settled (its rejection is still the caller's to await). */
export function track<T>(p: Promise<T>): { promise: Promise<T>; done: () => boolean } {
  let settled = false;
  const promise = p.finally(() => (settled = true));
  promise.catch(() => undefined);
  return { promise, done: () => settled };
}

/** Lets the event loop turn `n` times (timers aside): whatever could run meanwhile has run. */
export const ticks = async (n = 20): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** Counts turns of the event loop (setImmediate) until stopped: how often a task let others run. */
export function loopTicker(): { stop: () => number } {
  let ticks = 0;
  let done = false;
  const loop = () => {
    ticks++;
    if (!done) setImmediate(loop);
  };
  setImmediate(loop);
  return {
    stop: () => {
      done = true;
      return ticks;
    },
  };
}
