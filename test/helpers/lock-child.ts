/**
 * A contender in a lock race. Usage:
 *   node lock-child <dir> <holdMs> [store]
 * Prints "ready", waits for a line on stdin (sent to all contenders at once), then takes the directory lock
 * (with `store`: opens an HNSWStore and puts one item as pid-<pid>) and prints
 * "held" (then holds it until a second stdin line, or <holdMs> without one, and
 * releases) or "locked <ErrorName>".
 */
import { StoreLockedError } from "../../src/errors.js";

const [dir, holdMs, mode] = process.argv.slice(2);
process.stdout.on("error", () => process.exit(0)); // the parent is gone
// Load everything first, so that all contenders start together.
const { HNSWStore } = mode === "store" ? await import("../../src/store/hnsw/hnsw-store.js") : { HNSWStore: undefined };
const { DirectoryLock } = await import("../../src/store/hnsw/lock.js");
process.stdout.write("ready\n");
const lines: string[] = [];
let wake: (() => void) | undefined;
process.stdin.on("data", (d: Buffer) => {
  lines.push(...d.toString().split("\n").filter(Boolean));
  wake?.();
});
const nextLine = (n: number) =>
  new Promise<void>((resolve) => {
    if (lines.length >= n) return resolve();
    wake = () => lines.length >= n && resolve();
  });
await nextLine(1);
const hold = () => Promise.race([nextLine(2), new Promise((r) => setTimeout(r, Number(holdMs)))]);
try {
  if (HNSWStore) {
    const store = new HNSWStore({ path: dir });
    await store.put(["race"], `pid-${process.pid}`, { pid: process.pid });
    process.stdout.write("held\n");
    await hold();
    await store.close();
  } else {
    const lock = DirectoryLock.acquire(dir);
    process.stdout.write("held\n");
    await hold();
    lock.release();
  }
} catch (err) {
  process.stdout.write(`locked ${err instanceof StoreLockedError ? "StoreLockedError" : String(err)}\n`);
}
process.exit(0); // (the hold timer would keep the process alive)
