import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { StoreLockedError } from "../../errors.js";
import { isAlive } from "../../process-alive.js";

/** Directories locked by stores in this process. */
const heldHere = new Set<string>();

/** What a lock (or a take-over guard) file says about its owner. */
interface LockInfo {
  /** NaN when the file names no owner (half-written by an older version). */
  pid: number;
  /** Unique per lock file ever written: a take-over names the lock it removes by it. */
  nonce: string;
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/**
 * Reads a lock file. Null when it is gone. A file this code did not write
 * whole (an older version's lock, a half-written one) has no nonce: it is
 * named by its inode and mtime, and counts as held while it is young.
 */
function readLock(file: string): (LockInfo & { young: boolean }) | null {
  let text: string;
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const young = Date.now() - st.mtimeMs < 5_000;
  try {
    const j = JSON.parse(text) as { pid?: unknown; nonce?: unknown };
    const pid = Number(j.pid);
    if (typeof j.nonce === "string" && /^[0-9a-f]{32}$/.test(j.nonce)) return { pid, nonce: j.nonce, young };
    return { pid, nonce: `legacy-${st.ino}-${Math.round(st.mtimeMs)}`, young };
  } catch {
    // Being written by an older version, or a crash while it wrote: no owner known.
    return { pid: NaN, nonce: `legacy-${st.ino}-${Math.round(st.mtimeMs)}`, young };
  }
}

/**
 * Creates `file` holding `{ pid, nonce }`, all at once: the content is
 * written and fsynced to a private temporary file that is then hard-linked
 * to `file`, which fails if `file` exists. Nobody ever sees a partial lock.
 */
function createExclusive(dir: string, file: string): LockInfo | null {
  const info: LockInfo = { pid: process.pid, nonce: randomBytes(16).toString("hex") };
  const tmp = path.join(dir, `LOCK.${process.pid}.${info.nonce}.tmp`);
  const fd = fs.openSync(tmp, "wx");
  try {
    fs.writeSync(fd, JSON.stringify({ ...info, since: new Date().toISOString() }));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
    return info;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Removes the stale file `file` whose content is `stale`, if nobody else is
 * doing it. Only the process that creates the guard `LOCK.break-<nonce>`
 * (exclusively) may remove the file with that nonce, and only after seeing
 * the same nonce in it again; nonces are never reused, so two contenders can
 * never both remove a lock, nor remove a fresh one. A guard whose owner died
 * is itself removed the same way.
 */
function breakStale(dir: string, file: string, stale: LockInfo, depth: number): void {
  const guard = path.join(dir, `LOCK.break-${stale.nonce}`);
  const mine = createExclusive(dir, guard);
  if (!mine) {
    const g = readLock(guard);
    if (g && !isAlive(g.pid) && !(Number.isNaN(g.pid) && g.young) && depth < 4) breakStale(dir, guard, g, depth + 1);
    else sleepMs(2 + Math.random() * 5); // another contender is removing it
    return;
  }
  try {
    const again = readLock(file);
    if (again && again.nonce === stale.nonce) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/** Removes this package's temporary lock files left by processes that are gone. */
function removeDeadTemps(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const m = /^LOCK\.(\d+)\.[0-9a-f]{32}\.tmp$/.exec(name);
    if (m && !isAlive(Number(m[1]))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * An exclusive lock on a store directory: a `LOCK` file holding the owner's
 * pid and a unique nonce, created atomically (temporary file + `link()`).
 * Exactly one contender wins, however many start at the same instant; the
 * others get {@link StoreLockedError}. A lock whose process is gone is taken
 * over by exactly one contender (see {@link breakStale}).
 */
export class DirectoryLock {
  private constructor(
    readonly dir: string,
    private readonly file: string,
    private readonly nonce: string,
  ) {}

  static acquire(dir: string): DirectoryLock {
    const real = fs.realpathSync(dir);
    const file = path.join(real, "LOCK");
    if (heldHere.has(real)) {
      throw new StoreLockedError(`store directory ${dir} is already open in this process (pid ${process.pid}); close the other HNSWStore first`, dir, process.pid);
    }
    removeDeadTemps(real);
    for (let attempt = 0; attempt < 200; attempt++) {
      const mine = createExclusive(real, file);
      if (mine) {
        heldHere.add(real);
        return new DirectoryLock(real, file, mine.nonce);
      }
      const held = readLock(file);
      if (!held) continue; // released meanwhile: try again
      if (Number.isNaN(held.pid) && held.young) {
        throw new StoreLockedError(`store directory ${dir} is being locked by another process right now`, dir, NaN);
      }
      // A pid equal to ours that this process does not hold is stale (a
      // former process with the same pid).
      if (held.pid !== process.pid && isAlive(held.pid)) {
        throw new StoreLockedError(`store directory ${dir} is locked by process ${held.pid}; only one HNSWStore may write to a directory`, dir, held.pid);
      }
      breakStale(real, file, held, 0);
    }
    throw new StoreLockedError(`could not take the lock on ${dir} (it keeps changing hands)`, dir, NaN);
  }

  release(): void {
    heldHere.delete(this.dir);
    const held = readLock(this.file);
    if (held && held.nonce === this.nonce) fs.rmSync(this.file, { force: true });
  }
}
