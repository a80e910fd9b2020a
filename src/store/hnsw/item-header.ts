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
const TAB = 9;

/**
 * Reads the headers of one items file in place, from its bytes: no
 * `JSON.parse`, no string of the line, and (when `full` is false, as the open
 * reads every line) no string at all but a new namespace. It takes only the
 * shape the writer produces (`JSON.stringify` of a {@link Header}); for
 * anything else (even valid JSON written another way) {@link read} returns
 * undefined, and the caller falls back to {@link parseHeader}, which accepts
 * it or names the line.
 */
export class HeaderReader {
  private p = 0;

  constructor(private readonly b: Buffer) {}

  /**
   * The header of the line at `start` (its `[`), or undefined. With `full`
   * false, the key, index paths and fields are checked but not decoded: they
   * come back as "". {@link end} is then the position of the tab after it.
   */
  read(start: number, first: boolean, full: boolean): Header | undefined {
    const b = this.b;
    if (b[start] !== OPEN) return undefined;
    this.p = start + 1;
    let ns: string[] | 0;
    if (b[this.p] === 48 /* 0 */ && !first) {
      ns = 0;
      this.p++;
    } else {
      const labels = this.strings(true);
      if (!labels) return undefined;
      ns = labels;
    }
    if (!this.comma()) return undefined;
    const key = this.string(full);
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
    if (this.word("null")) index = null;
    else if (this.word("false")) index = false;
    else {
      const paths = this.strings(full);
      if (!paths) return undefined;
      index = paths;
    }
    if (!this.comma() || b[this.p] !== OPEN) return undefined;
    this.p++;
    const vec: (number | string)[] = [];
    while (b[this.p] !== CLOSE) {
      if (vec.length > 0 && !this.comma()) return undefined;
      const label = this.number();
      if (label === undefined || !Number.isInteger(label) || label < 0 || !this.comma()) return undefined;
      const field = this.string(full);
      if (field === undefined) return undefined;
      vec.push(label, field);
    }
    this.p++;
    if (b[this.p] !== CLOSE || b[this.p + 1] !== TAB) return undefined;
    this.p++;
    return [ns, key, createdAt, updatedAt, exp, ttl, index, vec];
  }

  /** After a successful {@link read}: where the header's tab is. */
  get end(): number {
    return this.p;
  }

  private comma(): boolean {
    if (this.b[this.p] !== COMMA) return false;
    this.p++;
    return true;
  }

  private word(w: "null" | "false"): boolean {
    const b = this.b;
    for (let i = 0; i < w.length; i++) if (b[this.p + i] !== w.charCodeAt(i)) return false;
    this.p += w.length;
    return true;
  }

  /** A JSON string at the cursor; decoded when `decode` (escapes by JSON.parse, the rare case), else "". */
  private string(decode: boolean): string | undefined {
    const b = this.b;
    if (b[this.p] !== QUOTE) return undefined;
    let q = this.p + 1;
    let escaped = false;
    for (;;) {
      const c = b[q];
      if (c === undefined || c < 0x20) return undefined; // JSON has no raw control characters in strings
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        q += 2;
      } else q++;
    }
    let s = "";
    if (escaped) {
      try {
        const v = JSON.parse(b.toString("utf8", this.p, q + 1)) as unknown;
        if (typeof v !== "string") return undefined;
        s = v;
      } catch {
        return undefined;
      }
    } else if (decode) s = b.toString("utf8", this.p + 1, q);
    this.p = q + 1;
    return s;
  }

  /** `["a","b",…]` at the cursor. */
  private strings(decode: boolean): string[] | undefined {
    const b = this.b;
    if (b[this.p] !== OPEN) return undefined;
    this.p++;
    const out: string[] = [];
    while (b[this.p] !== CLOSE) {
      if (out.length > 0 && !this.comma()) return undefined;
      const s = this.string(decode);
      if (s === undefined) return undefined;
      out.push(s);
    }
    this.p++;
    return out;
  }

  /** A finite JSON number at the cursor. */
  private number(): number | undefined {
    const b = this.b;
    let q = this.p;
    const negative = b[q] === 45; /* - */
    if (negative) q++;
    const digits = q;
    let v = 0;
    while (isDigit(b[q]!)) v = v * 10 + (b[q++]! - 48);
    if (q === digits || (b[digits] === 48 && q - digits > 1)) return undefined; // no digits, or a leading zero
    let c = b[q];
    if (c !== 46 && c !== 101 && c !== 69 /* . e E */) {
      if (q - digits > 15) v = Number(b.toString("latin1", digits, q)); // beyond exact sums
      this.p = q;
      return negative ? -v : v;
    }
    if (c === 46) {
      const frac = ++q;
      while (isDigit(b[q]!)) q++;
      if (q === frac) return undefined;
      c = b[q];
    }
    if (c === 101 || c === 69) {
      q++;
      if (b[q] === 43 || b[q] === 45) q++;
      const exp = q;
      while (isDigit(b[q]!)) q++;
      if (q === exp) return undefined;
    }
    const n = Number(b.toString("latin1", this.p, q));
    if (!Number.isFinite(n)) return undefined;
    this.p = q;
    return n;
  }

  private nullable(): number | null | undefined {
    if (this.word("null")) return null;
    return this.number();
  }
}
