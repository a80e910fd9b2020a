import { checkBoolean, checkKnownKeys, checkNumber } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { AuditChainError, InvalidArgumentError, StoreClosedError } from "../errors.js";
import { keyedHash } from "./keyed-hash.js";

/** Namespace roots the package writes for its own bookkeeping; their subject is the namespace after the root. */
export const INTERNAL_ROOTS: readonly string[] = ["memory_cursors", "memory_history", "episode_cursors"];

/** Options for {@link AuditLog}. */
export interface AuditLogOptions {
  /** Directory for `audit.log`, `audit.secret` and `audit-subjects.json` (created if missing). */
  path: string;
  /**
   * The per-store secret that keys every hash and the chain's MACs. When
   * omitted, 32 random bytes are generated once and kept in `audit.secret`
   * (mode 0600) beside the log.
   * @default read from or created in `<path>/audit.secret`
   */
  secret?: Buffer | string;
  /**
   * How many leading labels of a namespace name the person it belongs to
   * (`["users", "42", …]` → 2). Hashes of a subject's entries are salted per
   * subject, so {@link AuditLog.forgetSubject} makes them unlinkable.
   * @default 2
   */
  subjectDepth?: number;
  /**
   * fdatasync after each entry.
   * @default true
   */
  sync?: boolean;
}

/** What one audit entry records. Never the memory's text, never a key or identity in clear. */
export interface AuditEntry {
  seq: number;
  /** ISO time. */
  at: string;
  op: "put" | "update" | "delete" | "delete_namespace" | "erase";
  /** The namespace's first label (e.g. `"users"`), in clear: it names a kind of data, not a person. */
  root: string;
  /** Salted hash of the namespace (null for erase). */
  ns: string | null;
  /** Salted hash of the key (null when the operation has none). */
  key: string | null;
  source: string;
  /** Hash of the acting identity under the store secret, or null when unknown. */
  identity: string | null;
  /** Items removed, for namespace deletes and erasures. */
  count?: number;
  /** MAC of the previous entry ("" for the first). */
  prev: string;
  /** HMAC-SHA256 (store secret) over `prev` and this entry's other fields. */
  mac: string;
}

/** What {@link AuditLog.verify} found. */
export interface AuditVerifyReport {
  ok: boolean;
  entries: number;
  /** 1-based line of the first entry whose chain does not hold. */
  brokenAt?: number;
  problem?: string;
}

/** The input of one audit record. */
export interface AuditRecord {
  op: AuditEntry["op"];
  namespace: readonly string[];
  key?: string;
  source: string;
  identity?: string;
  count?: number;
}

/**
 * An append-only, tamper-evident log of memory writes and deletes: each line
 * carries an HMAC over the previous line's MAC and its own fields, so an edited,
 * removed or reordered line breaks the chain ({@link verify}). Keys,
 * namespaces and identities are stored only as keyed hashes, salted per
 * person, never the memory text.
 */
export class AuditLog {
  readonly path: string;
  private readonly options: AuditLogOptions;
  private secret?: Buffer;
  private salts: Record<string, string> = {};
  private handle?: FileHandle;
  private lastMac = "";
  private seq = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private opened?: Promise<void>;
  private closed = false;

  constructor(options: AuditLogOptions) {
    checkKnownKeys(options, OPTION_KEYS.auditLog);
    if (!options || typeof options.path !== "string" || options.path.length === 0) {
      throw new InvalidArgumentError("AuditLog needs { path }: the directory for its files");
    }
    checkNumber(options.subjectDepth, "subjectDepth", { min: 1, integer: true });
    checkBoolean(options.sync, "sync");
    const depth = options.subjectDepth ?? 2;
    if (!Number.isInteger(depth) || depth < 1) throw new InvalidArgumentError(`subjectDepth must be a positive integer, got ${String(depth)}`);
    this.path = options.path;
    this.options = { ...options, subjectDepth: depth };
  }

  private get logFile(): string {
    return join(this.path, "audit.log");
  }

  private open(): Promise<void> {
    this.opened ??= this.doOpen();
    return this.opened;
  }

  private async doOpen(): Promise<void> {
    await mkdir(this.path, { recursive: true });
    this.secret = await this.loadSecret();
    this.salts = await readJson(join(this.path, "audit-subjects.json"), {});
    const lines = await readLines(this.logFile);
    if (lines.length > 0) {
      const last = parseEntry(lines[lines.length - 1], lines.length);
      this.lastMac = last.mac;
      this.seq = last.seq;
    }
    this.handle = await open(this.logFile, "a", 0o600);
  }

  private async loadSecret(): Promise<Buffer> {
    if (this.options.secret !== undefined) {
      const s = Buffer.from(this.options.secret);
      if (s.length < 16) throw new InvalidArgumentError("the audit secret must be at least 16 bytes");
      return s;
    }
    const file = join(this.path, "audit.secret");
    try {
      return Buffer.from((await readFile(file, "utf8")).trim(), "hex");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const secret = randomBytes(32);
    try {
      await writeFile(file, secret.toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      return Buffer.from((await readFile(file, "utf8")).trim(), "hex");
    }
    return secret;
  }

  private subjectOf(namespace: readonly string[]): string[] {
    const labels = INTERNAL_ROOTS.includes(namespace[0]) ? namespace.slice(1) : namespace;
    return labels.slice(0, this.options.subjectDepth);
  }

  private async saltFor(namespace: readonly string[], create: boolean): Promise<string | undefined> {
    const id = keyedHash(this.secret!, JSON.stringify(this.subjectOf(namespace)));
    let salt = this.salts[id];
    if (!salt && create) {
      salt = randomBytes(16).toString("hex");
      this.salts[id] = salt;
      await this.saveSalts();
    }
    return salt;
  }

  private async saveSalts(): Promise<void> {
    const file = join(this.path, "audit-subjects.json");
    const tmp = `${file}.tmp`;
    const fh = await open(tmp, "w", 0o600);
    try {
      await fh.writeFile(JSON.stringify(this.salts));
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    await chmod(file, 0o600);
  }

  /** Appends one entry (serialised with every other append of this log). */
  append(record: AuditRecord): Promise<AuditEntry> {
    const run = this.queue.then(() => this.doAppend(record));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async doAppend(record: AuditRecord): Promise<AuditEntry> {
    if (this.closed) throw new StoreClosedError("the audit log is closed");
    await this.open();
    const secret = this.secret!;
    const erase = record.op === "erase";
    const salt = erase ? undefined : await this.saltFor(record.namespace, true);
    const body = {
      seq: this.seq + 1,
      at: new Date().toISOString(),
      op: record.op,
      root: record.namespace[0] ?? "",
      ns: salt ? keyedHash(salt, JSON.stringify(record.namespace)) : null,
      key: salt && record.key !== undefined ? keyedHash(salt, record.key) : null,
      source: record.source,
      identity: record.identity === undefined ? null : keyedHash(secret, record.identity),
      ...(record.count === undefined ? {} : { count: record.count }),
      prev: this.lastMac,
    };
    const entry: AuditEntry = { ...body, mac: keyedHash(secret, JSON.stringify(body)) };
    await this.handle!.write(JSON.stringify(entry) + "\n");
    if (this.options.sync !== false) await this.handle!.datasync();
    this.lastMac = entry.mac;
    this.seq = entry.seq;
    return entry;
  }

  /**
   * Makes every entry about the person owning `namespace` unlinkable to them
   * (their salt is destroyed, so their hashes can no longer be recomputed) and
   * records the erasure. The chain stays intact.
   */
  forgetSubject(namespace: readonly string[], count: number, actor: { source: string; identity?: string }): Promise<AuditEntry> {
    const run = this.queue.then(async () => {
      await this.open();
      const id = keyedHash(this.secret!, JSON.stringify(this.subjectOf(namespace)));
      if (this.salts[id]) {
        delete this.salts[id];
        await this.saveSalts();
      }
      return this.doAppend({ op: "erase", namespace: [namespace[0] ?? ""], count, ...actor });
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The hashes an entry about `namespace`/`key` would carry, while the subject is not forgotten. */
  async hashesFor(namespace: readonly string[], key?: string): Promise<{ ns: string; key: string | null } | undefined> {
    await this.open();
    const salt = await this.saltFor(namespace, false);
    if (!salt) return undefined;
    return { ns: keyedHash(salt, JSON.stringify(namespace)), key: key === undefined ? null : keyedHash(salt, key) };
  }

  /** Every entry, oldest first. */
  async entries(): Promise<AuditEntry[]> {
    await this.queue;
    const lines = await readLines(this.logFile);
    return lines.map((l, i) => parseEntry(l, i + 1));
  }

  /** Checks the whole chain: each MAC, each `prev` link and the sequence numbers. */
  async verify(): Promise<AuditVerifyReport> {
    await this.open();
    await this.queue;
    const lines = await readLines(this.logFile);
    let prev = "";
    for (let i = 0; i < lines.length; i++) {
      let entry: AuditEntry;
      try {
        entry = parseEntry(lines[i], i + 1);
      } catch (err) {
        return { ok: false, entries: lines.length, brokenAt: i + 1, problem: (err as Error).message };
      }
      const { mac, ...body } = entry;
      if (entry.seq !== i + 1) return { ok: false, entries: lines.length, brokenAt: i + 1, problem: `sequence ${entry.seq} where ${i + 1} was expected` };
      if (entry.prev !== prev) return { ok: false, entries: lines.length, brokenAt: i + 1, problem: "does not link to the entry before it" };
      if (keyedHash(this.secret!, JSON.stringify(body)) !== mac) return { ok: false, entries: lines.length, brokenAt: i + 1, problem: "MAC does not match its contents" };
      prev = mac;
    }
    return { ok: true, entries: lines.length };
  }

  async close(): Promise<void> {
    await this.queue;
    this.closed = true;
    // An open still under way (verify() or subjectHash() start one outside the queue) sets the handle when it ends.
    await this.opened?.catch(() => undefined);
    await this.handle?.close();
    this.handle = undefined;
  }
}

async function readLines(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return text.split("\n").filter((l) => l.length > 0);
}

function parseEntry(line: string, lineNo: number): AuditEntry {
  try {
    const e = JSON.parse(line) as AuditEntry;
    if (typeof e.mac !== "string" || typeof e.seq !== "number") throw new Error("missing fields");
    return e;
  } catch (err) {
    throw new AuditChainError(`audit.log line ${lineNo} is not a valid entry (${(err as Error).message})`);
  }
}

async function readJson<T>(file: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw new AuditChainError(`${file} is unreadable: ${(err as Error).message}`);
  }
}
