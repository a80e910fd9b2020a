/**
 * Whether a process with this pid exists (signal 0; EPERM means it exists
 * but belongs to another user). Used to tell stale lock and owner files
 * from live ones.
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
