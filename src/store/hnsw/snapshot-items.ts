import fs from "node:fs";
import zlib from "node:zlib";
import { CorruptStoreError } from "../../errors.js";
import { namespaceKey } from "../namespace.js";
import type { FileChecksum } from "./checksum.js";
import type { FileCipher } from "./cipher.js";
import type { StoredItem } from "./item-table.js";
import { LoadedItem } from "./loaded-item.js";
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

/** A run of consecutive items of one namespace, as read from a snapshot. */
export interface LoadedGroup {
  namespace: string[];
  items: StoredItem[];
}

/** What {@link readSnapshotItems} yields: the items by namespace, and the labels they own. */
export interface LoadedItems {
  groups: LoadedGroup[];
  count: number;
  /** One past the highest label an item owns (0: none). */
  labelEnd: number;
  /** `used[label] === 1` when an item owns `label`. */
  used: Uint8Array;
}

/**
 * Reads, checks and splits an items file into its item lines (the footer
 * checked and removed). The size and crc32 are checked before anything is
 * parsed; sealed lines are opened one by one.
 */
async function readLines(file: string, expected: number, checksum?: FileChecksum, cipher?: FileCipher): Promise<string[]> {
  let buf: Buffer;
  try {
    buf = await fs.promises.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    if (checksum) throw new CorruptStoreError(`items file ${file} is missing (the manifest lists it)`, file);
    if (expected === 0) return [];
    throw new CorruptStoreError(`items file ${file} is missing`, file);
  }
  return splitChecked(file, buf, expected, checksum, cipher);
}

function splitChecked(file: string, buf: Buffer, expected: number, checksum?: FileChecksum, cipher?: FileCipher): string[] {
  if (checksum) {
    if (buf.length !== checksum.bytes) {
      throw new CorruptStoreError(`items file ${file} is ${buf.length} bytes, the manifest recorded ${checksum.bytes}: truncated or overwritten`, file);
    }
    const crc = zlib.crc32(buf).toString(16).padStart(8, "0");
    if (crc !== checksum.crc) throw new CorruptStoreError(`items file ${file} is corrupt (checksum ${crc}, the manifest recorded ${checksum.crc})`, file);
  }
  let lines = buf.toString("utf8").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  if (cipher) {
    lines = lines.map((line, i) => {
      const plain = cipher.openLine(line, "items");
      if (plain === undefined) throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (fails authentication)`, file);
      return plain;
    });
  }
  const footer = lines.pop();
  let count = -1;
  try {
    count = footer ? ((JSON.parse(footer) as { end?: number }).end ?? -1) : -1;
  } catch {
    // handled below
  }
  if (count !== lines.length || count !== expected) {
    throw new CorruptStoreError(`items file ${file} is truncated or corrupt (expected ${expected} items)`, file);
  }
  return lines;
}

/** Format 3 lines start with the header array; formats 1 and 2 with a JSON object. */
const isV3 = (lines: string[]) => lines.length > 0 && lines[0]!.startsWith("[");

type Header = [string[] | 0, string, number, number, number | null, number | null, false | string[] | null, (number | string)[]];

function parseHeader(file: string, line: string, i: number): { head: Header; valueAt: number } {
  const tab = line.indexOf("\t");
  let head: Header | undefined;
  try {
    if (tab > 0) head = JSON.parse(line.slice(0, tab)) as Header;
  } catch {
    // handled below
  }
  // The value stays unparsed: check its outline now, so that a damaged line fails the open.
  const outline = line.charCodeAt(tab + 1) === 123 && line.charCodeAt(line.length - 1) === 125;
  if (!head || !outline || !isHeader(head, i === 0)) throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (not an item)`, file);
  return { head, valueAt: tab + 1 };
}

function isHeader(h: Header, first: boolean): boolean {
  if (!Array.isArray(h) || h.length !== 8) return false;
  const [ns, key, createdAt, updatedAt, exp, ttl, index, vec] = h;
  if (ns === 0 ? first : !(Array.isArray(ns) && ns.every((l) => typeof l === "string"))) return false;
  if (typeof key !== "string" || !Number.isFinite(createdAt) || !Number.isFinite(updatedAt)) return false;
  if ((exp !== null && !Number.isFinite(exp)) || (ttl !== null && !Number.isFinite(ttl))) return false;
  if (index !== null && index !== false && !(Array.isArray(index) && index.every((p) => typeof p === "string"))) return false;
  if (!Array.isArray(vec) || vec.length % 2 !== 0) return false;
  for (let j = 0; j < vec.length; j += 2) if (!Number.isInteger(vec[j]) || (vec[j] as number) < 0 || typeof vec[j + 1] !== "string") return false;
  return true;
}

/** Lines per slice of decoding; between slices the event loop runs (the index loads meanwhile). */
const SLICE = 8192;

/**
 * Reads a snapshot's items file for a store to open: the items grouped by
 * namespace, their values left as JSON until first read (format 3), and the
 * labels they own. Decodes in slices, yielding to the event loop between them.
 */
export async function readSnapshotItems(file: string, expected: number, checksum?: FileChecksum, cipher?: FileCipher): Promise<LoadedItems> {
  const lines = await readLines(file, expected, checksum, cipher);
  const groups: LoadedGroup[] = [];
  let labelEnd = 0;
  const labels: number[] = [];
  if (isV3(lines)) {
    let group: LoadedGroup | undefined;
    let nsKey = "";
    const source = { file };
    for (let i = 0; i < lines.length; i++) {
      if (i > 0 && i % SLICE === 0) await yieldToLoop();
      const line = lines[i]!;
      const { head, valueAt } = parseHeader(file, line, i);
      const [ns, key, createdAt, updatedAt, exp, ttl, index, vec] = head;
      if (ns !== 0) {
        groups.push((group = { namespace: ns, items: [] }));
        nsKey = namespaceKey(ns);
      }
      const vectors: { label: number; field: string }[] = [];
      for (let j = 0; j < vec.length; j += 2) {
        const label = vec[j] as number;
        vectors.push({ label, field: vec[j + 1] as string });
        labels.push(label);
        if (label >= labelEnd) labelEnd = label + 1;
      }
      const item = new LoadedItem(`${nsKey}\n${key}`, group!.namespace, key, line.slice(valueAt), createdAt, updatedAt, vectors, source);
      if (exp !== null) item.expiresAt = exp;
      if (ttl !== null) item.ttl = ttl;
      if (index !== null) item.index = index;
      group!.items.push(item);
    }
  } else {
    const byNs = new Map<string, LoadedGroup>();
    parseV2(file, lines).forEach((s) => {
      const key = namespaceKey(s.ns);
      let group = byNs.get(key);
      if (!group) byNs.set(key, (group = { namespace: s.ns, items: [] }));
      const vectors = (s.vec ?? []).map(([label, field]) => ({ label, field }));
      for (const { label } of vectors) {
        labels.push(label);
        if (label >= labelEnd) labelEnd = label + 1;
      }
      group.items.push({ id: `${key}\n${s.key}`, namespace: group.namespace, key: s.key, value: s.value, createdAt: s.createdAt, updatedAt: s.updatedAt, expiresAt: s.exp, ttl: s.ttl, index: s.index, vectors });
    });
    groups.push(...byNs.values());
  }
  const used = new Uint8Array(labelEnd);
  for (const label of labels) used[label] = 1;
  return { groups, count: lines.length, labelEnd, used };
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
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    if (checksum) throw new CorruptStoreError(`items file ${file} is missing (the manifest lists it)`, file);
    if (expected === 0) return [];
    throw new CorruptStoreError(`items file ${file} is missing`, file);
  }
  const lines = splitChecked(file, buf, expected, checksum, cipher);
  if (!isV3(lines)) return parseV2(file, lines);
  let ns: string[] = [];
  return lines.map((line, i) => {
    const { head, valueAt } = parseHeader(file, line, i);
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
