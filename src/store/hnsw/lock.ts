import fs from "node:fs";
import path from "node:path";
import { StoreLockedError } from "../../errors.js";

/** Directories locked by stores in this process. */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * An exclusive lock on a store directory: a `LOCK` file holding the owner's
 * pid, created with O_EXCL. A second store on the same directory, in this
 * process or another, fails at once. A lock whose process is gone is taken
 * over.
 */
export class DirectoryLock {
  private constructor(
    readonly dir: string,
    private readonly file: string,
  ) {}

  static acquire(dir: string): DirectoryLock {
    const real = fs.realpathSync(dir);
    const file = path.join(real, "LOCK");
    if (heldHere.has(real)) {
      throw new StoreLockedError(`store directory ${dir} is already open in this process (pid ${process.pid}); close the other HNSWStore first`, dir, process.pid);
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = fs.openSync(file, "wx");
        fs.writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        heldHere.add(real);
        return new DirectoryLock(real, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      let pid = NaN;
      try {
        pid = Number(JSON.parse(fs.readFileSync(file, "utf8")).pid);
      } catch {
        // unreadable lock: a crash while writing it; treat as stale
      }
      // A pid equal to ours that this process does not hold is stale too
      // (left by an earlier process that had the same pid).
      if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) {
        throw new StoreLockedError(`store directory ${dir} is locked by process ${pid}; only one HNSWStore may write to a directory`, dir, pid);
      }
      try {
        fs.unlinkSync(file);
      } catch {
        // someone else removed it first; retry
      }
    }
    throw new StoreLockedError(`could not take the lock on ${dir}`, dir, NaN);
  }

  release(): void {
    heldHere.delete(this.dir);
    try {
      fs.unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}
