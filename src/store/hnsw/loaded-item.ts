import { CorruptStoreError } from "../../errors.js";
import type { StoredItem } from "./item-table.js";

/** The bytes of one items file (its lines opened, when sealed), shared by every item loaded from it. */
export interface ItemsSource {
  file: string;
  bytes: Buffer;
}

/**
 * An item loaded from a format-3 snapshot. Its value stays JSON text (a
 * range of the file's bytes) until something first reads it (a filter, a get,
 * keyword ranking), so opening a store neither parses nor copies any value;
 * a compaction that finds it still unread writes the text back as it was.
 */
export class LoadedItem implements StoredItem {
  private parsed?: Record<string, unknown>;
  expiresAt?: number;
  ttl?: number;
  index?: false | string[];
  gid?: number;

  constructor(
    readonly id: string,
    readonly namespace: string[],
    readonly key: string,
    public createdAt: number,
    public updatedAt: number,
    public vectors: { label: number; field: string }[],
    /** The items file it came from (shared by all its items); undefined once the value was read. */
    private source: ItemsSource | undefined,
    /** Where the value's JSON starts and ends in `source.bytes`. */
    private readonly start: number,
    private readonly end: number,
  ) {}

  get value(): Record<string, unknown> {
    if (this.parsed === undefined) {
      const source = this.source!;
      let value: unknown;
      try {
        value = JSON.parse(source.bytes.toString("utf8", this.start, this.end));
      } catch {
        // The items file passed its crc32: only a writer bug gets here.
      }
      if (value === null || typeof value !== "object") {
        throw new CorruptStoreError(`items file ${source.file} is corrupt: the value of ${JSON.stringify(this.namespace)}/${this.key} is not a JSON object`, source.file);
      }
      this.parsed = value as Record<string, unknown>;
      this.source = undefined;
    }
    return this.parsed;
  }

  set value(value: Record<string, unknown>) {
    this.parsed = value;
    this.source = undefined;
  }

  /** The value's JSON while it has not been read (then undefined). */
  get valueJson(): string | undefined {
    return this.source?.bytes.toString("utf8", this.start, this.end);
  }
}
