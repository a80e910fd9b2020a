/** What a task holding the lock may do. */
export type LockMode = "read" | "write";

/** Handed to a writer: lets later readers in while it finishes read-only work (a compaction writing files). */
export interface WriteHold {
  /**
   * From now on the writer no longer changes the store's memory: readers
   * queued behind it (and not behind another writer) may run beside it.
   */
  shareWithReaders(): void;
}

interface Waiter {
  mode: LockMode;
  start: () => void;
}

/**
 * A first-come first-served reader/writer lock for the store's batches.
 *
 * - Readers run together; a writer runs alone.
 * - Tasks start in the order they were queued: a reader queued after a
 *   writer waits for it (so it sees that write), and a writer waits for the
 *   readers ahead of it.
 * - A writer may call {@link WriteHold.shareWithReaders} once its changes to
 *   memory are done (a compaction, while it writes the snapshot files): the
 *   readers queued next start at once, while later writers keep waiting
 *   until it finishes.
 */
export class BatchLock {
  private queue: Waiter[] = [];
  private readers = 0;
  private writing = false;
  private shared = false;

  /** Runs `fn` when the lock admits it in `mode`; the lock is released when it settles. */
  run<T>(mode: LockMode, fn: (hold: WriteHold) => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        let held = true;
        const hold: WriteHold = {
          shareWithReaders: () => {
            if (mode !== "write" || !held || this.shared) return;
            this.shared = true;
            this.pump();
          },
        };
        const release = () => {
          held = false;
          if (mode === "read") this.readers--;
          else {
            this.writing = false;
            this.shared = false;
          }
          this.pump();
        };
        let result: Promise<T>;
        try {
          result = Promise.resolve(fn(hold));
        } catch (err) {
          result = Promise.reject(err);
        }
        result.then(
          (v) => {
            release();
            resolve(v);
          },
          (err) => {
            release();
            reject(err);
          },
        );
      };
      this.queue.push({ mode, start });
      this.pump();
    });
  }

  /** Tasks running or waiting (for tests and stats). */
  get pending(): number {
    return this.queue.length + this.readers + (this.writing ? 1 : 0);
  }

  private pump(): void {
    while (this.queue.length) {
      const head = this.queue[0]!;
      const admit = head.mode === "read" ? !this.writing || this.shared : !this.writing && this.readers === 0;
      if (!admit) return;
      this.queue.shift();
      if (head.mode === "read") this.readers++;
      else this.writing = true;
      head.start();
    }
  }
}
