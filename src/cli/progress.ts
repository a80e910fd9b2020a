import cliProgress from "cli-progress";
import { CancelledError } from "../errors.js";

/**
 * Progress of long work on stderr: a cli-progress bar with rate and ETA when
 * stderr is a terminal, else a plain line every `intervalMs` (and at the end),
 * so logs and CI show it too. Quiet with `--json` only when `quiet` is set.
 */
export class Progress {
  private bar?: cliProgress.SingleBar;
  private started = Date.now();
  private lastLine = 0;
  private done = 0;

  constructor(
    private readonly label: string,
    private total: number,
    private readonly options: { quiet?: boolean; intervalMs?: number; stream?: NodeJS.WriteStream } = {},
  ) {}

  /** The bar starts with the first update, so an error found before any work is the first thing printed. */
  private startBar(): cliProgress.SingleBar | undefined {
    const stream = this.options.stream ?? process.stderr;
    if (this.bar || !stream.isTTY) return this.bar;
    this.bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${this.label} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
        etaBuffer: 50,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(this.total, 0, { rate: "0" });
    return this.bar;
  }

  private rate(): number {
    const s = (Date.now() - this.started) / 1000;
    return s > 0 ? this.done / s : 0;
  }

  setTotal(total: number): void {
    this.total = total;
    this.bar?.setTotal(total);
  }

  update(done: number): void {
    this.done = done;
    if (this.options.quiet) return;
    const bar = this.startBar();
    if (bar) {
      bar.update(done, { rate: this.rate().toFixed(0) });
      return;
    }
    const now = Date.now();
    if (now - this.lastLine >= (this.options.intervalMs ?? 1000)) {
      this.lastLine = now;
      this.plainLine();
    }
  }

  private plainLine(): void {
    const rate = this.rate();
    const pct = this.total > 0 ? Math.floor((100 * this.done) / this.total) : 100;
    const eta = rate > 0 && this.total > this.done ? `, ETA ${Math.ceil((this.total - this.done) / rate)}s` : "";
    (this.options.stream ?? process.stderr).write(`${this.label}: ${this.done}/${this.total} (${pct}%), ${rate.toFixed(0)}/s${eta}\n`);
  }

  /** Stops the bar (and prints a last plain line). */
  stop(): void {
    if (this.options.quiet) return;
    const bar = this.startBar();
    if (bar) bar.stop();
    else this.plainLine();
  }

  /** Stops after a failure: ends a started bar, prints no summary line, so the error is what the user reads. */
  abandon(): void {
    this.bar?.stop();
  }
}

/**
 * Ctrl-C handling for long work: the first SIGINT (or SIGTERM) sets a flag
 * that the work checks between batches, so it stops at a consistent point and
 * the directory is closed normally. A second one exits at once (the store's
 * log still makes that safe).
 */
export class Cancellation {
  private cancelled = false;
  private readonly handler = () => {
    if (this.cancelled) process.exit(130);
    this.cancelled = true;
    process.stderr.write("\ncancelling… (press Ctrl-C again to quit at once)\n");
  };

  constructor() {
    process.on("SIGINT", this.handler);
    process.on("SIGTERM", this.handler);
  }

  get requested(): boolean {
    return this.cancelled;
  }

  /** Throws {@link CancelledError} once Ctrl-C was pressed. */
  check(what: string): void {
    if (this.cancelled) throw new CancelledError(`${what} cancelled; the directory was left consistent`);
  }

  dispose(): void {
    process.off("SIGINT", this.handler);
    process.off("SIGTERM", this.handler);
  }
}
