import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** Runs test/helpers/store-child.ts under tsx. */
export function spawnStoreChild(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", path.join(root, "test/helpers/store-child.ts"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Resolves when the child has printed a line matching `pattern`. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const onData = (d: Buffer) => {
      buf += d.toString();
      const line = buf.split("\n").find((l) => pattern.test(l));
      if (line) {
        child.stdout!.off("data", onData);
        resolve(line);
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before printing ${pattern}`)));
  });
}

export function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

/** What a finished child printed, and how it ended. */
export interface ChildOutput {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Feeds `input` (or nothing) to the child's stdin and collects its output until it closes. */
export function collectOutput(child: ChildProcess, input?: string): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin?.end(input ?? "");
  });
}
