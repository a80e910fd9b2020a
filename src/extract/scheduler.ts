import type { ExtractorLogger } from "./model-call.js";
import type { BackgroundFailure } from "../scope/background-runs.js";

export { DebouncedScheduler, isRetryable, isStoreClosed, plural, withRetry } from "../scope/background-runs.js";

/** A background extraction that still failed after every retry (the shared scheduler's {@link BackgroundFailure}). */
export type ExtractionFailure = BackgroundFailure;

/**
 * The one line logged when an extraction found its store closed: what was
 * lost, that nothing is corrupted, and how to avoid it.
 */
export function storeClosedMessage(what: string): string {
  return (
    `memory extractor: ${what} could not run because its store was closed; its messages stay unread and will be read on the thread's next turn. ` +
    "Call `await extractor.flush()` before `store.close()` to finish pending extractions."
  );
}

/** The extractor's wording of the shared scheduler's log lines. */
export const EXTRACTION_RUNS = {
  what: "memory extractor: background extraction",
  afterFailure: "its messages stay unread and will be retried on the thread's next turn",
  storeClosed: (key: string) => storeClosedMessage(`the background extraction for ${key}`),
} as const;

/** Options of the extractor's scheduler. */
export const extractionRunOptions = (o: { attempts: number; retryDelayMs: number; logger: ExtractorLogger }) => ({ ...o, ...EXTRACTION_RUNS });
