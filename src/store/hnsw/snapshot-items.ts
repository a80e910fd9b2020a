import fs from "node:fs";
import { CorruptStoreError } from "../../errors.js";
import { namespaceKey } from "../namespace.js";
import { checkAgainst, crcHex, type FileChecksum } from "./checksum.js";
import type { FileCipher } from "./cipher.js";
import type { PendingGroup, StoredItem } from "./item-table.js";
import { LoadedItem, type ItemsSource } from "./loaded-item.js";
import { HeaderReader, parseHeader, type Header } from "./item-header.js";
import { yieldToLoop } from "../../time-slice.js";

/** One item as written in (and fully read back from) a snapshot's items file. */
export interface SnapshotItem {
  ns: string[];
  key: string;
  value: Record<string, unknown>;
  /**
   * The value's JSON, when the writer already has it (an item loaded from a
   * snapshot and never read since): written as is, without a parse and a
   * stringify. Never set on items read back.
   */
  valueJson?: string;
  createdAt: number;
  updatedAt: number;
  exp?: number;
  ttl?: number;
  index?: false | string[];
  /** `[label, field]` pairs: the label ↔ item map. */
  vec?: [number, string][];
}

/**
 * Encodes the items of a format-3 snapshot, one line each, in the order the
 * store holds them (namespace by namespace):
 *
 * ```
 * [ns | 0, key, createdAt, updatedAt, exp | null, ttl | null, index | null, [label, field, …]] \t <value JSON>
 * ```
 *
 * `ns` is written only when it differs from the previous line's (`0`: the
 * same). JSON never holds a raw tab, so the first tab ends the header: the
 * reader parses the short header and keeps the value's JSON unparsed until
 * the value is first read. The file ends with the footer `{"end": <count>}`.
 */
export class SnapshotItemEncoder {
  private lastNs?: string;

  line(item: SnapshotItem): string {
    const ns = namespaceKey(item.ns);
    const vec: (number | string)[] = [];
    for (const [label, field] of item.vec ?? []) vec.push(label, field);
    const head = [ns === this.lastNs ? 0 : item.ns, item.key, item.createdAt, item.updatedAt, item.exp ?? null, item.ttl ?? null, item.index ?? null, vec];
    this.lastNs = ns;
    return `${JSON.stringify(head)}\t${item.valueJson ?? JSON.stringify(item.value)}`;
  }
}

/** The footer line of every items file. */
export const itemsFooter = (count: number): string => JSON.stringify({ end: count });

/**
 * What {@link readSnapshotItems} yields: the items by namespace (each group
 * decoded when first used), and the labels they own.
 */
export interface LoadedItems {
  groups: PendingGroup[];
  count: number;
  /** One past the highest label an item owns (0: none). */
  labelEnd: number;
  /** `used[label] === 1` when an item owns `label`. */
  used: Uint8Array;
  /** `groupOf[label]` is 1 + the index in `groups` of the group whose item owns `label` (0: none). */
  groupOf: Uint32Array;
}

/** A group being read: its lines' ranges in the text, and what the open learns of them. */
interface GroupRuns extends PendingGroup {
  /** [start, end) pairs of text positions, one per run of its lines. */
  ranges: number[];
}

/** A group's counts before its first item (see {@link countItem}). */
const emptyGroup = (namespace: string[]) => ({ namespace, count: 0, firstExpiry: Infinity, lastExpiry: -Infinity });

/** Counts one more item of `group`, widening its expiry range (Infinity: it never expires). */
function countItem(group: PendingGroup, exp: number | null | undefined): void {
  group.count++;
  const expiry = exp ?? Infinity;
  if (expiry < group.firstExpiry) group.firstExpiry = expiry;
  if (expiry > group.lastExpiry) group.lastExpiry = expiry;
}

/** Reads an items file; undefined when it is missing and may be (an empty store). */
async function readItemsFile(file: string, expected: number, checksum?: FileChecksum): Promise<Buffer | undefined> {
  try {
    return await fs.promises.readFile(file);
  } catch (err) {
    return missingItemsFile(err, file, expected, checksum);
  }
}

/** After a failed read: undefined when the file may be missing (nothing to read), else the error to throw. */
function missingItemsFile(err: unknown, file: string, expected: number, checksum?: FileChecksum): undefined {
  if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  if (checksum) throw new CorruptStoreError(`items file ${file} is missing (the manifest lists it)`, file);
  if (expected === 0) return undefined;
  throw new CorruptStoreError(`items file ${file} is missing`, file);
}

function checkSum(file: string, buf: Buffer, checksum?: FileChecksum): void {
  if (checksum) checkAgainst(file, { bytes: buf.length, crc: crcHex(buf) }, checksum, "items file");
}

/** The footer's count (-1 when it is not a footer). */
function footerCount(footer: string | undefined): number {
  try {
    return footer ? ((JSON.parse(footer) as { end?: number }).end ?? -1) : -1;
  } catch {
    return -1;
  }
}

/**
 * The checked bytes of an items file (every line opened, when sealed), and
 * where its footer starts: the item lines are the bytes before it.
 */
function itemsBytes(file: string, buf: Buffer, expected: number, checksum?: FileChecksum, cipher?: FileCipher): { bytes: Buffer; footerAt: number } {
  checkSum(file, buf, checksum);
  let bytes = buf;
  if (cipher) {
    const lines = buf.toString("utf8").split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const plain = lines.map((line, i) => {
      const opened = cipher.openLine(line, "items");
      if (opened === undefined) throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (fails authentication)`, file);
      return opened;
    });
    bytes = Buffer.from(plain.join("\n"), "utf8");
  }
  let end = bytes.length;
  if (bytes[end - 1] === 10) end--;
  const footerAt = end === 0 ? 0 : bytes.lastIndexOf(10, end - 1) + 1;
  if (footerCount(bytes.toString("utf8", footerAt, end)) !== expected) {
    throw new CorruptStoreError(`items file ${file} is truncated or corrupt (expected ${expected} items)`, file);
  }
  return { bytes, footerAt };
}

/**
 * Reads, checks and splits an items file into its item lines (the footer
 * checked and removed). The size and crc32 are checked before anything is
 * parsed; sealed lines are opened one by one.
 */
function splitChecked(file: string, buf: Buffer, expected: number, checksum?: FileChecksum, cipher?: FileCipher): string[] {
  const { bytes, footerAt } = itemsBytes(file, buf, expected, checksum, cipher);
  return linesOf(file, bytes, footerAt, expected);
}

function linesOf(file: string, bytes: Buffer, footerAt: number, expected: number): string[] {
  const lines = footerAt === 0 ? [] : bytes.toString("utf8", 0, footerAt - 1).split("\n");
  if (lines.length !== expected) throw new CorruptStoreError(`items file ${file} is truncated or corrupt (expected ${expected} items)`, file);
  return lines;
}

/** Format 3 lines start with the header array; formats 1 and 2 with a JSON object. */
const isV3 = (lines: string[]) => lines.length > 0 && lines[0]!.startsWith("[");

/** A format-3 line's header and where its value starts (tools' path: whole lines). */
function parseLine(file: string, line: string, i: number): { head: Header; valueAt: number } {
  const tab = line.indexOf("\t");
  const head = parseHeader(file, tab > 0 ? line.slice(0, tab) : "", i);
  checkOutline(file, line, tab + 1, line.length, i);
  return { head, valueAt: tab + 1 };
}

/** The value stays unparsed: check its outline now, so that a damaged line fails the open. */
function checkOutline(file: string, line: string | Buffer, start: number, end: number, i: number): void {
  const ok = typeof line === "string" ? line.charCodeAt(start) === 123 && line.charCodeAt(end - 1) === 125 : line[start] === 123 && line[end - 1] === 125;
  if (start > 0 && ok) return;
  throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (not an item)`, file);
}

/** Lines per slice of the scan; between slices the event loop runs (the checksums and the graph load meanwhile). */
const SLICE = 8192;

/**
 * Reads a snapshot's items file for a store to open: its namespaces (each
 * one's items decoded when first used, their values left as JSON until first
 * read, for format 3) and the labels the items own. Scans in slices,
 * yielding to the event loop between them.
 */
export async function readSnapshotItems(
  file: string,
  expected: number,
  checksum?: FileChecksum,
  cipher?: FileCipher,
  /** The file's checksum taken elsewhere (a worker): the scan runs beside it, and nothing is returned before it matched. */
  actual?: Promise<FileChecksum>,
): Promise<LoadedItems> {
  const buf = await readItemsFile(file, expected, checksum);
  if (!buf) return { groups: [], count: 0, labelEnd: 0, used: new Uint8Array(0), groupOf: new Uint32Array(0) };
  let verify: (() => Promise<void>) | undefined;
  if (checksum && actual) {
    if (buf.length !== checksum.bytes) checkAgainst(file, { bytes: buf.length, crc: "" }, checksum, "items file");
    verify = async () => checkAgainst(file, await actual, checksum, "items file");
  }
  try {
    const loaded = await scanItems(file, buf, expected, verify ? undefined : checksum, cipher);
    await verify?.();
    return loaded;
  } catch (err) {
    await verify?.(); // damage that fails the checksum is reported as such, as when it is checked first
    throw err;
  }
}

async function scanItems(file: string, buf: Buffer, expected: number, checksum?: FileChecksum, cipher?: FileCipher): Promise<LoadedItems> {
  const { bytes, footerAt } = itemsBytes(file, buf, expected, checksum, cipher);
  // Label i of the file's items is labels[i], owned by an item of group owners[i].
  const labels: number[] = [];
  const owners: number[] = [];
  const groups = bytes[0] === 91 ? await scanV3(file, bytes, footerAt, expected, labels, owners) : decodeV2(file, linesOf(file, bytes, footerAt, expected), labels, owners);
  let labelEnd = 0;
  for (const label of labels) if (label >= labelEnd) labelEnd = label + 1;
  const used = new Uint8Array(labelEnd);
  const groupOf = new Uint32Array(labelEnd);
  for (let i = 0; i < labels.length; i++) {
    used[labels[i]!] = 1;
    groupOf[labels[i]!] = owners[i]! + 1;
  }
  return { groups, count: expected, labelEnd, used, groupOf };
}

/**
 * Checks every line of a format-3 file and learns what the open needs of
 * each namespace's run of lines (count, labels, expiries) without keeping
 * any item: a group's items are decoded from its lines when first used.
 */
async function scanV3(file: string, bytes: Buffer, footerAt: number, expected: number, labels: number[], owners: number[]): Promise<PendingGroup[]> {
  const groups: GroupRuns[] = [];
  const byNs = new Map<string, number>();
  const source: ItemsSource = { file, bytes };
  const reader = new HeaderReader(bytes);
  let at = -1;
  let i = 0;
  for (let pos = 0; pos < footerAt; i++) {
    if (i > 0 && i % SLICE === 0) await yieldToLoop();
    const line = lineAt(file, bytes, reader, pos, i === 0, i, false);
    const [ns, , , , exp, , , vec] = line.head;
    if (ns !== 0) {
      const nsKey = namespaceKey(ns);
      const known = byNs.get(nsKey);
      if (at >= 0) groups[at]!.ranges.push(pos);
      if (known === undefined) {
        byNs.set(nsKey, (at = groups.length));
        groups.push(pendingGroup(source, reader, ns, nsKey));
      } else at = known;
      groups[at]!.ranges.push(pos);
    }
    countItem(groups[at]!, exp);
    for (let j = 0; j < vec.length; j += 2) {
      labels.push(vec[j] as number);
      owners.push(at);
    }
    pos = line.next;
  }
  if (at >= 0) groups[at]!.ranges.push(footerAt);
  if (i !== expected) throw new CorruptStoreError(`items file ${file} is truncated or corrupt (expected ${expected} items)`, file);
  return groups;
}

/**
 * The line at `pos`: its header (checked; with `full`, every string decoded),
 * where its value lies, and where the next line starts.
 */
function lineAt(file: string, bytes: Buffer, reader: HeaderReader, pos: number, first: boolean, i: number, full: boolean): { head: Header; valueAt: number; valueEnd: number; next: number } {
  let head = reader.read(pos, first, full);
  let tab = reader.end;
  const nl = bytes.indexOf(10, head ? tab : pos); // the footer follows: there is one
  if (!head) {
    tab = bytes.indexOf(9, pos);
    if (tab < 0 || tab > nl) tab = nl;
    head = parseHeader(file, bytes.toString("utf8", pos, tab), i);
  }
  checkOutline(file, bytes, tab + 1, nl, i);
  return { head, valueAt: tab + 1, valueEnd: nl, next: nl + 1 };
}

function pendingGroup(source: ItemsSource, reader: HeaderReader, namespace: string[], nsKey: string): GroupRuns {
  const group: GroupRuns = {
    ...emptyGroup(namespace),
    ranges: [],
    decode: () => {
      const items: StoredItem[] = new Array(group.count);
      let n = 0;
      for (let r = 0; r < group.ranges.length; r += 2) {
        for (let pos = group.ranges[r]!; pos < group.ranges[r + 1]!; ) {
          const line = lineAt(source.file, source.bytes, reader, pos, false, -1, true);
          const [, key, createdAt, updatedAt, exp, ttl, index, vec] = line.head;
          // Arrays of their exact size: a pushed-to [] reserves 17 slots, and every item keeps its own.
          const vectors = new Array<{ label: number; field: string }>(vec.length / 2);
          for (let j = 0; j < vec.length; j += 2) vectors[j / 2] = { label: vec[j] as number, field: vec[j + 1] as string };
          const item = new LoadedItem(`${nsKey}\n${key}`, namespace, key, createdAt, updatedAt, vectors, source, line.valueAt, line.valueEnd);
          if (exp !== null) item.expiresAt = exp;
          if (ttl !== null) item.ttl = ttl;
          if (index !== null) item.index = index;
          items[n++] = item;
          pos = line.next;
        }
      }
      return items;
    },
  };
  return group;
}

/** Format 1 and 2 lines: whole JSON items, grouped by namespace (decoded now). */
function decodeV2(file: string, lines: string[], labels: number[], owners: number[]): PendingGroup[] {
  const byNs = new Map<string, number>();
  const groups: (PendingGroup & { items: StoredItem[] })[] = [];
  parseV2(file, lines).forEach((s) => {
    const key = namespaceKey(s.ns);
    let at = byNs.get(key);
    if (at === undefined) {
      byNs.set(key, (at = groups.length));
      const items: StoredItem[] = [];
      groups.push({ ...emptyGroup(s.ns), items, decode: () => items });
    }
    const group = groups[at]!;
    const vectors = (s.vec ?? []).map(([label, field]) => ({ label, field }));
    for (const { label } of vectors) {
      labels.push(label);
      owners.push(at!);
    }
    group.items.push({ id: `${key}\n${s.key}`, namespace: group.namespace, key: s.key, value: s.value, createdAt: s.createdAt, updatedAt: s.updatedAt, expiresAt: s.exp, ttl: s.ttl, index: s.index, vectors });
    countItem(group, s.exp);
  });
  return groups;
}

/**
 * Reads a snapshot's items file whole, every value parsed (any format): for
 * tools that inspect a directory. The store itself uses {@link readSnapshotItems}.
 */
export function readItems(file: string, expected: number, checksum?: FileChecksum, cipher?: FileCipher): SnapshotItem[] {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (err) {
    return missingItemsFile(err, file, expected, checksum) ?? [];
  }
  const lines = splitChecked(file, buf, expected, checksum, cipher);
  if (!isV3(lines)) return parseV2(file, lines);
  let ns: string[] = [];
  return lines.map((line, i) => {
    const { head, valueAt } = parseLine(file, line, i);
    if (head[0] !== 0) ns = head[0];
    let value: Record<string, unknown> | undefined;
    try {
      value = JSON.parse(line.slice(valueAt)) as Record<string, unknown>;
    } catch {
      // handled below
    }
    if (value === null || typeof value !== "object") throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (not an item)`, file);
    const s: SnapshotItem = { ns, key: head[1], value, createdAt: head[2], updatedAt: head[3] };
    if (head[4] !== null) s.exp = head[4];
    if (head[5] !== null) s.ttl = head[5];
    if (head[6] !== null) s.index = head[6];
    const vec = head[7];
    if (vec.length) {
      s.vec = [];
      for (let j = 0; j < vec.length; j += 2) s.vec.push([vec[j] as number, vec[j + 1] as string]);
    }
    return s;
  });
}

/** Lines of a format 1 or 2 items file: one whole JSON item each. */
function parseV2(file: string, lines: string[]): SnapshotItem[] {
  return lines.map((line, i) => {
    let item: SnapshotItem;
    try {
      item = JSON.parse(line) as SnapshotItem;
    } catch {
      throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1}`, file);
    }
    if (!isSnapshotItem(item)) throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (not an item)`, file);
    return item;
  });
}

function isSnapshotItem(x: SnapshotItem): boolean {
  return (
    x !== null &&
    typeof x === "object" &&
    Array.isArray(x.ns) &&
    x.ns.every((l) => typeof l === "string") &&
    typeof x.key === "string" &&
    x.value !== null &&
    typeof x.value === "object" &&
    Number.isFinite(x.createdAt) &&
    Number.isFinite(x.updatedAt) &&
    (x.vec === undefined || (Array.isArray(x.vec) && x.vec.every((p) => Array.isArray(p) && Number.isInteger(p[0]) && p[0] >= 0 && typeof p[1] === "string")))
  );
}
