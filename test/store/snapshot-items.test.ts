import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CorruptStoreError } from "../../src/index.js";
import { LoadedItem } from "../../src/store/hnsw/loaded-item.js";
import { itemsFooter, readItems, readSnapshotItems, SnapshotItemEncoder, type SnapshotItem } from "../../src/store/hnsw/snapshot-items.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function writeLines(lines: string[]): string {
  const t = tempDir("items-codec-");
  cleanups.push(t.cleanup);
  const file = path.join(t.dir, "items-1.jsonl");
  fs.writeFileSync(file, [...lines, itemsFooter(lines.length)].join("\n") + "\n");
  return file;
}

const NS_A = ["users", "a\tb", "mem"];
const NS_B = ["users", "ü \"quoted\"", "mem"];
const items: SnapshotItem[] = [
  { ns: NS_A, key: "k\t1\n", value: { text: "tab\there, newline\nthere", n: 1 }, createdAt: 1, updatedAt: 2, vec: [[0, "text"], [5, "title"]] },
  { ns: NS_A, key: "寿司", value: { nested: { deep: [1, { x: null }] } }, createdAt: 3, updatedAt: 4, exp: 99, ttl: 60, index: ["title"] },
  { ns: NS_B, key: "k", value: {}, createdAt: 5, updatedAt: 6, index: false },
  { ns: NS_A, key: "again", value: { back: true }, createdAt: 7, updatedAt: 8, vec: [[3, "text"]] },
];

describe("format-3 items codec", () => {
  it("round-trips keys, namespaces and values holding tabs, newlines, quotes and non-ASCII text", async () => {
    const enc = new SnapshotItemEncoder();
    const lines = items.map((i) => enc.line(i));
    expect(lines[1]!.startsWith("[0,")).toBe(true); // same namespace as the line before
    expect(lines[3]!.startsWith('[["users"')).toBe(true); // the namespace changed back: written again
    const file = writeLines(lines);
    expect(readItems(file, items.length)).toEqual(items);

    const loaded = await readSnapshotItems(file, items.length);
    // A namespace's runs form one group, decoded on demand; the open learns counts, labels and expiries.
    const decoded = loaded.groups.map((g) => g.decode());
    expect(loaded.groups.map((g, i) => [g.namespace, g.count, decoded[i]!.map((it) => it.key)])).toEqual([
      [NS_A, 3, ["k\t1\n", "寿司", "again"]],
      [NS_B, 1, ["k"]],
    ]);
    expect(loaded.groups.map((g) => [g.firstExpiry, g.lastExpiry])).toEqual([
      [99, Infinity],
      [Infinity, Infinity],
    ]);
    expect(loaded.labelEnd).toBe(6);
    expect([...loaded.used]).toEqual([1, 0, 0, 1, 0, 1]);
    expect([...loaded.groupOf]).toEqual([1, 0, 0, 1, 0, 1]);
    const first = decoded[0]![0] as LoadedItem;
    expect(first).toBeInstanceOf(LoadedItem);
    expect(first.valueJson).toBe(JSON.stringify(items[0]!.value)); // not parsed at load
    expect(first.value).toEqual(items[0]!.value);
    expect(first.valueJson).toBeUndefined();
    const second = decoded[0]![1]!;
    expect([second.expiresAt, second.ttl, second.index, second.vectors]).toEqual([99, 60, ["title"], []]);
    expect(decoded[1]![0]!.index).toBe(false);
  });

  it("writes an unread value's JSON as it was read", () => {
    const line = new SnapshotItemEncoder().line({ ...items[0]!, value: undefined!, valueJson: '{"raw":"as read"}' });
    expect(line.endsWith('\t{"raw":"as read"}')).toBe(true);
  });

  it("still reads format-2 lines (one JSON item each), with both readers", async () => {
    const file = writeLines(items.map((i) => JSON.stringify(i)));
    expect(readItems(file, items.length)).toEqual(items);
    const loaded = await readSnapshotItems(file, items.length);
    expect(loaded.groups.map((g) => g.decode().length)).toEqual([3, 1]); // grouped by namespace
    expect(loaded.groups[0]!.decode()[2]!.value).toEqual({ back: true });
    // The expiry range listings and sweeps answer from is the items' own, as for format 3.
    expect(loaded.groups.map((g) => [g.count, g.firstExpiry, g.lastExpiry])).toEqual([
      [3, 99, Infinity],
      [1, Infinity, Infinity],
    ]);
  });

  const good = () => items.map((i, n) => new SnapshotItemEncoder().line(n === 0 ? i : { ...i, ns: i.ns })); // every line names its namespace
  it.each([
    ["a header that is not JSON", (l: string[]) => (l[1] = l[1]!.replace("[", "{"))],
    ["a line without its tab", (l: string[]) => (l[1] = l[1]!.replace("\t", " "))],
    ["a value cut short", (l: string[]) => (l[2] = l[2]!.slice(0, -3))],
    ["a first line that refers to a previous namespace", (l: string[]) => (l[0] = l[0]!.replace(/^\[\[[^\]]*\]/, "[0"))],
    ["a negative label", (l: string[]) => (l[3] = l[3]!.replace("[3,", "[-3,"))],
  ])("%s is a CorruptStoreError naming the file and line", async (_what, damage) => {
    const lines = good();
    damage(lines);
    const file = writeLines(lines);
    for (const read of [() => readSnapshotItems(file, items.length), async () => readItems(file, items.length)]) {
      const err = await read().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptStoreError);
      expect((err as CorruptStoreError).file).toBe(file);
      expect((err as Error).message).toMatch(/at line \d/);
    }
  });

  it("a missing footer or a wrong count is a CorruptStoreError", async () => {
    const lines = good();
    const file = writeLines(lines);
    await expect(readSnapshotItems(file, lines.length + 1)).rejects.toThrow(CorruptStoreError);
    fs.writeFileSync(file, lines.join("\n") + "\n");
    await expect(readSnapshotItems(file, lines.length)).rejects.toThrow(/truncated or corrupt/);
  });
});
