/**
 * A closed pipe is the reader saying "enough" (`langgraph-memory export | head`):
 * the CLI stops quietly with exit code 0 instead of printing an EPIPE stack.
 * Read commands hold nothing that needs flushing, and a store's writes are
 * already in its log, so ending at once is safe. `serve` keeps running when
 * its stdout goes away (only its first lines go there).
 */
let keepRunning = false;

/** Installs the handler on stdout and stderr (once per process). */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
      if (!keepRunning) process.exit(0);
    });
  }
}

/** For long-running commands: a closed stdout (or stderr) no longer ends the process. */
export function keepRunningOnClosedPipe(): void {
  keepRunning = true;
}
