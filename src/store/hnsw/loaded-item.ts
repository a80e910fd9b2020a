import { CorruptStoreError } from "../../errors.js";
import type { StoredItem } from "./item-table.js";

/**
 * An item loaded from a format-3 snapshot. Its value stays JSON text until
 * something first reads it (a filter, a get, keyword ranking), so opening a
 * store does not parse every value; a compaction that finds it still unread
 * writes the text back as it was.
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
    private json: string | undefined,
    public createdAt: number,
    public updatedAt: number,
    public vectors: { label: number; field: string }[],
    /** The items file it came from (shared by all its items). */
    private readonly source: { file: string },
  ) {}

  get value(): Record<string, unknown> {
    if (this.parsed === undefined) {
      let value: unknown;
      try {
        value = JSON.parse(this.json!);
      } catch {
        // The items file passed its crc32: only a writer bug gets here.
      }
      if (value === null || typeof value !== "object") {
        throw new CorruptStoreError(`items file ${this.source.file} is corrupt: the value of ${JSON.stringify(this.namespace)}/${this.key} is not a JSON object`, this.source.file);
      }
      this.parsed = value as Record<string, unknown>;
      this.json = undefined;
    }
    return this.parsed;
  }

  set value(value: Record<string, unknown>) {
    this.parsed = value;
    this.json = undefined;
  }

  /** The value's JSON while it has not been read (then undefined). */
  get valueJson(): string | undefined {
    return this.json;
  }
}
