/**
 * Four writer processes write through RemoteStore (and the /v1 endpoint) to
 * one memory server process at once; the server is stopped with SIGTERM
 * while they write (graceful: in-flight requests finish, the store closes),
 * then restarted on the same directory. Every acknowledged write is there,
 * none twice. Real processes, real HTTP on 127.0.0.1, real HNSWStore on disk.
 * (In test/faults: six processes are too heavy for the fast suite.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { waitForExit, waitForLine } from "../helpers/spawn-child.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "../..");
const WRITERS = 4;
const MAX_WRITES = 400; // per writer: bounds the test if the server were never stopped
const children: ChildProcess[] = [];

const spawnTs = (script: string, args: string[]) => {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/server", script), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return child;
};

const collect = (child: ChildProcess) => {
  const lines: string[] = [];
  let buf = "";
  child.stdout!.on("data", (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split("\n");
    buf = parts.pop()!;
    lines.push(...parts);
  });
  return lines;
};

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

it("4 processes write at once, the server restarts: every acknowledged write present, none duplicated", { timeout: 300_000 }, async () => {
  const { dir, cleanup } = tempDir("memory-server-procs-");
  try {
    const server = spawnTs("server-process.ts", [dir, "0"]);
    const url = (await waitForLine(server, /^listening on /)).replace("listening on ", "").trim();

    const writers = Array.from({ length: WRITERS }, (_, w) => spawnTs("writer-process.ts", [url, `w${w}`, String(MAX_WRITES)]));
    const outputs = writers.map(collect);
    // Let all four get going, then stop the server under them.
    const deadline = Date.now() + 120_000;
    while (outputs.some((o) => o.filter((l) => l.startsWith("ack")).length < 15) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    server.kill("SIGTERM");
    expect(await waitForExit(server)).toBe(0);
    await Promise.all(writers.map(waitForExit));

    const acks = outputs.map((o) => o.filter((l) => l.startsWith("ack ")).map((l) => l.split(" ")));
    for (const a of acks) expect(a.length).toBeGreaterThanOrEqual(15);
    console.log(`acknowledged writes per writer: ${acks.map((a) => a.length).join(", ")}; last lines: ${outputs.map((o) => o.at(-1)).join(" | ")}`);
    // The server went away while they wrote: each writer stopped on an error (or, rarely, finished).
    for (const o of outputs) expect(o.some((l) => l.startsWith("stopped") || l === "done")).toBe(true);

    // Restart on the same directory and check.
    const again = spawnTs("server-process.ts", [dir, "0"]);
    await waitForLine(again, /^listening on /);
    again.kill("SIGTERM");
    expect(await waitForExit(again)).toBe(0);

    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
    try {
      for (let w = 0; w < WRITERS; w++) {
        const writer = `w${w}`;
        const puts = await store.search(["procs", writer], { limit: 1000 });
        const memories = await store.search(["users", writer], { limit: 1000 });
        const seqs = [...puts.map((i) => i.value.seq as number), ...memories.map((i) => i.value.metadata && (i.value.metadata as { seq: number }).seq)];
        // None duplicated: each seq at most once.
        expect(new Set(seqs).size).toBe(seqs.length);
        // Every acknowledged write is present, under the id the writer was given.
        for (const [, kind, seq, id] of acks[w]) {
          const item = kind === "put" ? await store.get(["procs", writer], id) : await store.get(["users", writer], id);
          expect(item, `${writer} ${kind} ${seq}`).not.toBeNull();
          expect(item!.value.text).toBe(`writer ${writer} fact ${seq}`);
        }
        // At most the one write in flight when the server stopped is there unacknowledged.
        expect(seqs.length - acks[w].length).toBeGreaterThanOrEqual(0);
        expect(seqs.length - acks[w].length).toBeLessThanOrEqual(1);
      }
    } finally {
      await store.close();
    }
  } finally {
    cleanup();
  }
});
