import type { KeywordDocument } from "../../embeddings/keyword-index.js";

/**
 * The keyword documents of items a small selection's BM25 ranked (see
 * runSearch), kept between searches so that a search reads the values of
 * new and changed items only, not of every item in scope. Each is keyed by
 * its item and the version of the item's row (PostgreSQL's `xmin`, new with
 * every write of the row by any process, with the item's update time), so a
 * changed item is read again.
 * At most `maxEntries` are kept: past that, the tenth least recently used
 * are dropped at once (a use costs no reordering).
 */
export class KeywordDocuments {
  private readonly entries = new Map<string, { version: string; doc: KeywordDocument | null; used: number }>();
  private tick = 0;

  constructor(private readonly maxEntries = 10_000) {}

  /** The item's document at `version`: null when it has no keyword texts, undefined when not kept. */
  get(id: string, version: string): KeywordDocument | null | undefined {
    const e = this.entries.get(id);
    if (e === undefined || e.version !== version) return undefined;
    e.used = ++this.tick;
    return e.doc;
  }

  set(id: string, version: string, doc: KeywordDocument | null): void {
    this.entries.set(id, { version, doc, used: ++this.tick });
    if (this.entries.size <= this.maxEntries) return;
    const oldest = [...this.entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key] of oldest.slice(0, Math.max(1, Math.ceil(this.maxEntries / 10)))) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops every document (a delete: no deleted item's text stays in memory). */
  clear(): void {
    this.entries.clear();
  }
}
