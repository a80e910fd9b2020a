import { spawn } from "node:child_process";
import { bundleChild } from "../helpers/bundle-child.js";

export interface ChildRun {
  stdout: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Runs the fault child to completion (or `timeoutMs`, then SIGKILL). */
export async function runFaultChild(args: string[], timeoutMs = 60_000): Promise<ChildRun> {
  const script = await bundleChild("test/faults/fault-child.ts");
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", () => undefined);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once("exit", (c, s) => r([c, s])));
  clearTimeout(timer);
  return { stdout, code, signal, timedOut };
}

/**
 * Starts a crash writer, lets it run `killAfterMs` after it is ready, then
 * SIGKILLs it. Returns its output lines.
 */
export async function crashRound(dir: string, seed: number, killAfterMs: number): Promise<string[]> {
  const script = await bundleChild("test/faults/fault-child.ts");
  const child = spawn(process.execPath, [script, "crash", dir, String(seed)], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stderr.on("data", () => undefined);
  const exited = new Promise((r) => child.once("exit", r));
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      const before = stdout.includes("ready\n");
      stdout += d.toString();
      if (!before && stdout.includes("ready\n")) resolve();
    });
    child.once("exit", () => resolve());
  });
  await new Promise((r) => setTimeout(r, killAfterMs));
  child.kill("SIGKILL");
  await exited;
  return stdout.split("\n");
}

/** The JSON after "RESULT " in a child's output, or undefined. */
export function resultOf(run: ChildRun): Record<string, unknown> | undefined {
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  return line ? (JSON.parse(line.slice(7)) as Record<string, unknown>) : undefined;
}
