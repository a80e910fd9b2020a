import fs from "node:fs";
import path from "node:path";
import { IncompleteMigrationError } from "../../errors.js";
import { isAlive } from "../../process-alive.js";

/**
 * A store directory being built by `langgraph-memory migrate` (or an
 * import into a new directory) holds this file until the build finished:
 * open and `verify` refuse a directory that has it, unless the process
 * that writes it is the one asking.
 */
export const INCOMPLETE_MARKER = "MIGRATING";

interface MarkerInfo {
  pid: number;
  source?: string;
  startedAt: string;
}

function readMarker(dir: string): MarkerInfo | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, INCOMPLETE_MARKER), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw err;
  }
  try {
    const j = JSON.parse(text) as Partial<MarkerInfo>;
    return { pid: Number(j.pid), source: typeof j.source === "string" ? j.source : undefined, startedAt: String(j.startedAt ?? "") };
  } catch {
    return { pid: NaN, startedAt: "" };
  }
}

/** Marks `dir` (created by the caller) as being built by this process. */
export function markIncomplete(dir: string, source?: string): void {
  const file = path.join(dir, INCOMPLETE_MARKER);
  const fd = fs.openSync(file, "wx", 0o600);
  try {
    fs.writeSync(fd, JSON.stringify({ pid: process.pid, source, startedAt: new Date().toISOString() }));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Throws {@link IncompleteMigrationError} when `dir` is a store still being
 * built by another process, or left half-built by one that died.
 */
export function refuseIncomplete(dir: string): void {
  const m = readMarker(dir);
  if (!m || m.pid === process.pid) return;
  const state = Number.isFinite(m.pid) && isAlive(m.pid) ? `is being built by process ${m.pid}` : `was left incomplete by a migration that did not finish (process ${Number.isFinite(m.pid) ? m.pid : "unknown"}, started ${m.startedAt || "at an unknown time"})`;
  throw new IncompleteMigrationError(`store directory ${dir} ${state}: it holds only part of the items. Re-run the migration (it starts over), or delete the directory`, dir);
}

/** The hidden sibling where a migration into `target` builds the store before renaming it into place. */
export function stagingDir(target: string, pid = process.pid): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.migrating-${pid}`);
}

/**
 * Removes the staging directories of migrations into `target` whose process
 * is dead (a SIGKILL mid-run), so that a re-run starts over. Throws
 * {@link IncompleteMigrationError} when a live process is building it.
 */
export function removeDeadStaging(target: string): void {
  const parent = path.dirname(target);
  const re = new RegExp(`^\\.${path.basename(target).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.migrating-(\\d+)$`);
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = re.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && isAlive(pid)) {
      throw new IncompleteMigrationError(`another migration (process ${pid}) is building ${target} in ${path.join(parent, name)}`, target);
    }
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/**
 * Finishes a build: removes the marker, then renames `staging` to `target`
 * (an empty directory there is replaced), with the directories fsynced so
 * that after a crash either the whole store is at `target` or none of it.
 */
export function promoteStaging(staging: string, target: string): void {
  fs.rmSync(path.join(staging, INCOMPLETE_MARKER), { force: true });
  fsyncDir(staging);
  if (fs.existsSync(target)) fs.rmdirSync(target); // only ever an empty directory (checked by the caller)
  fs.renameSync(staging, target);
  fsyncDir(path.dirname(target));
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
