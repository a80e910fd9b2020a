import { CorruptStoreError } from "../../errors.js";

/**
 * The header of a format-3 item line (see SnapshotItemEncoder):
 * `[ns | 0, key, createdAt, updatedAt, exp | null, ttl | null, index | null, [label, field, …]]`.
 */
export type Header = [string[] | 0, string, number, number, number | null, number | null, false | string[] | null, (number | string)[]];

/**
 * Parses a header with `JSON.parse` and checks its shape: the strict path,
 * for tools and for any header {@link HeaderReader} does not take.
 */
export function parseHeader(file: string, header: string, i: number): Header {
  let head: Header | undefined;
  try {
    head = JSON.parse(header) as Header;
  } catch {
    // handled below
  }
  if (!head || !isHeader(head, i === 0)) throw new CorruptStoreError(`items file ${file} is corrupt at line ${i + 1} (not an item)`, file);
  return head;
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

const isDigit = (c: number) => c >= 48 && c <= 57;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;
const N = 110;
const F = 102;

/**
 * Reads the headers of one items file's text in place, without `JSON.parse`
 * and without slicing the line: opening a store reads one per item, and the
 * parse and its garbage were most of the open. It takes only the shape the
 * writer produces (`JSON.stringify` of a {@link Header}); anything else
 * (even valid JSON written another way) returns undefined, and the caller
 * falls back to {@link parseHeader}, which accepts it or names the line.
 */
export class HeaderReader {
  private p = 0;

  constructor(private readonly text: string) {}

  /** The header from `start` (its `[`) to `end` (the tab after its `]`), or undefined. */
  read(start: number, end: number, first: boolean): Header | undefined {
    const t = this.text;
    if (t.charCodeAt(start) !== OPEN) return undefined;
    this.p = start + 1;
    let ns: string[] | 0;
    if (t.charCodeAt(this.p) === 48 /* 0 */ && !first) {
      ns = 0;
      this.p++;
    } else {
      const labels = this.strings();
      if (!labels) return undefined;
      ns = labels;
    }
    if (!this.comma()) return undefined;
    const key = this.string();
    if (key === undefined || !this.comma()) return undefined;
    const createdAt = this.number();
    if (createdAt === undefined || !this.comma()) return undefined;
    const updatedAt = this.number();
    if (updatedAt === undefined || !this.comma()) return undefined;
    const exp = this.nullable();
    if (exp === undefined || !this.comma()) return undefined;
    const ttl = this.nullable();
    if (ttl === undefined || !this.comma()) return undefined;
    let index: false | string[] | null;
    if (t.startsWith("null", this.p)) {
      index = null;
      this.p += 4;
    } else if (t.startsWith("false", this.p)) {
      index = false;
      this.p += 5;
    } else {
      const paths = this.strings();
      if (!paths) return undefined;
      index = paths;
    }
    if (!this.comma() || t.charCodeAt(this.p) !== OPEN) return undefined;
    this.p++;
    const vec: (number | string)[] = [];
    while (t.charCodeAt(this.p) !== CLOSE) {
      if (vec.length > 0 && !this.comma()) return undefined;
      const label = this.number();
      if (label === undefined || !Number.isInteger(label) || label < 0 || !this.comma()) return undefined;
      const field = this.string();
      if (field === undefined) return undefined;
      vec.push(label, field);
    }
    this.p++;
    if (t.charCodeAt(this.p) !== CLOSE || this.p + 1 !== end) return undefined;
    return [ns, key, createdAt, updatedAt, exp, ttl, index, vec];
  }

  private comma(): boolean {
    if (this.text.charCodeAt(this.p) !== COMMA) return false;
    this.p++;
    return true;
  }

  /** A JSON string at the cursor (escapes decoded by JSON.parse, the rare case). */
  private string(): string | undefined {
    const t = this.text;
    if (t.charCodeAt(this.p) !== QUOTE) return undefined;
    const close = t.indexOf('"', this.p + 1);
    if (close < 0) return undefined;
    const raw = t.slice(this.p + 1, close);
    if (raw.indexOf("\\") === -1) {
      this.p = close + 1;
      return raw;
    }
    let q = this.p + 1;
    while (q < t.length && t.charCodeAt(q) !== QUOTE) q += t.charCodeAt(q) === BACKSLASH ? 2 : 1;
    try {
      const s = JSON.parse(t.slice(this.p, q + 1)) as unknown;
      this.p = q + 1;
      return typeof s === "string" ? s : undefined;
    } catch {
      return undefined;
    }
  }

  /** `["a","b",…]` at the cursor. */
  private strings(): string[] | undefined {
    const t = this.text;
    if (t.charCodeAt(this.p) !== OPEN) return undefined;
    this.p++;
    const out: string[] = [];
    while (t.charCodeAt(this.p) !== CLOSE) {
      if (out.length > 0 && !this.comma()) return undefined;
      const s = this.string();
      if (s === undefined) return undefined;
      out.push(s);
    }
    this.p++;
    return out;
  }

  /** A finite JSON number at the cursor. */
  private number(): number | undefined {
    const t = this.text;
    let q = this.p;
    if (t.charCodeAt(q) === 45 /* - */) q++;
    const digits = q;
    while (isDigit(t.charCodeAt(q))) q++;
    let c = t.charCodeAt(q);
    if (q === digits || (t.charCodeAt(digits) === 48 && q - digits > 1)) return undefined; // no digits, or a leading zero
    if (c === 46 /* . */) {
      const frac = ++q;
      while (isDigit(t.charCodeAt(q))) q++;
      if (q === frac) return undefined;
      c = t.charCodeAt(q);
    }
    if (c === 101 || c === 69 /* e E */) {
      q++;
      if (t.charCodeAt(q) === 43 || t.charCodeAt(q) === 45) q++;
      const exp = q;
      while (isDigit(t.charCodeAt(q))) q++;
      if (q === exp) return undefined;
    }
    const v = Number(t.slice(this.p, q));
    if (!Number.isFinite(v)) return undefined;
    this.p = q;
    return v;
  }

  private nullable(): number | null | undefined {
    const t = this.text;
    if (t.charCodeAt(this.p) === N) {
      if (!t.startsWith("null", this.p)) return undefined;
      this.p += 4;
      return null;
    }
    if (t.charCodeAt(this.p) === F) return undefined;
    return this.number();
  }
}
