import { spawn } from "node:child_process";
import path from "node:path";
import { bundleChild } from "./bundle-child.js";

const root = path.resolve(import.meta.dirname, "../..");

/** The pid of a process that has exited (for a stale lock). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

/**
 * Starts `n` contenders for the lock on `dir`, lets them go at the same
 * instant, and returns what each printed ("held" or "locked …").
 */
export async function lockRace(dir: string, n: number, opts: { holdMs?: number; store?: boolean } = {}): Promise<string[]> {
  const script = await bundleChild("test/helpers/lock-child.ts");
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, [script, dir, String(opts.holdMs ?? 60_000), ...(opts.store ? ["store"] : [])], {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  for (const c of children) c.stdin!.on("error", () => undefined); // a contender that already exited
  const outputs = children.map(() => "");
  const ready = children.map(
    (c, i) =>
      new Promise<void>((resolve, reject) => {
        c.stdout!.on("data", (d: Buffer) => {
          outputs[i] += d.toString();
          if (outputs[i].includes("ready\n")) resolve();
        });
        c.once("exit", () => reject(new Error(`contender exited before it was ready: ${outputs[i]}`)));
      }),
  );
  const exited = children.map((c) => new Promise((r) => c.once("exit", r)));
  await Promise.all(ready);
  for (const c of children) c.stdin!.write("go\n"); // all waiting in read(): woken together
  // Everyone has answered while the holder still holds: then let it go.
  const answered = () => outputs.every((o) => /(held|locked[^\n]*)\n/.test(o.replace("ready\n", "")));
  while (!answered() && children.some((c) => c.exitCode === null)) await new Promise((r) => setTimeout(r, 20));
  for (const c of children) if (c.stdin!.writable) c.stdin!.end("release\n");
  await Promise.all(exited);
  return outputs.map((o) => o.replace("ready\n", "").trim());
}
