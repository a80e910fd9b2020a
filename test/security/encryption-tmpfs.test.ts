/**
 * Encryption at rest and its one clear-text moment: hnswlib writes and reads
 * the index as a plain file, so the store puts that file in a RAM-backed
 * tmpfs. Attacks: another local user reading it during a compaction (it must
 * be 0600 inside a private 0700 directory), a SIGKILL leaving the clear copy
 * behind (the next encrypted open on the same tmpfs removes it), and a
 * wrong-key open (it must change nothing in the directory, LOCK included).
 * Real child processes, real SIGKILL, real /dev/shm.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { EncryptionError, HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitForExit, waitForLine } from "../helpers/spawn-child.js";

vi.setConfig({ testTimeout: 240_000 });

const root = path.resolve(import.meta.dirname, "../..");
const KEY = randomBytes(32).toString("hex");
const ITEMS = 2000; // 2,000 × 384 floats ≈ 3 MB of vectors

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const tally = { tried: 0, held: 0, failures: [] as string[] };
function count(name: string, held: boolean) {
  tally.tried++;
  if (held) tally.held++;
  else tally.failures.push(name);
}
afterAll(() => console.log(`encryption tmpfs: ${tally.held}/${tally.tried} held${tally.failures.length ? `; broke: ${tally.failures.join(" | ")}` : ""}`));

/** A fresh directory on /dev/shm (tmpfs), so that this test sees only its own RAM files. */
function ramDir(): string {
  const dir = fs.mkdtempSync("/dev/shm/lhm-test-ram-");
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function spawnChild(dir: string, ram: string): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "test/security/encryption-child.ts"), dir, KEY, ram, String(ITEMS)], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  cleanups.push(() => child.kill("SIGKILL"));
  return child;
}

/** Every clear index file under `ram`, with its mode and its directory's mode. */
function ramFiles(ram: string): { file: string; mode: number; dirMode: number; size: number }[] {
  const out: { file: string; mode: number; dirMode: number; size: number }[] = [];
  for (const name of fs.readdirSync(ram)) {
    const p = path.join(ram, name);
    try {
      const st = fs.statSync(p);
      if (st.isDirectory()) {
        for (const inner of fs.readdirSync(p)) {
          const f = fs.statSync(path.join(p, inner));
          out.push({ file: path.join(p, inner), mode: f.mode & 0o777, dirMode: st.mode & 0o777, size: f.size });
        }
      } else out.push({ file: p, mode: st.mode & 0o777, dirMode: fs.statSync(ram).mode & 0o777, size: st.size });
    } catch {
      // Removed between the listing and the stat: the compaction finished.
    }
  }
  return out;
}

/** Name, size and bytes of every file in `dir` (the LOCK file included). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    const st = fs.statSync(p);
    out[name] = `${st.size}:${st.mtimeMs}:${st.isFile() ? fs.readFileSync(p).toString("base64") : "dir"}`;
  }
  return out;
}

describe("the clear index in tmpfs", () => {
  it("is 0600 in a private 0700 directory during compactions; a SIGKILL's leftover is removed by the next open; a wrong key changes nothing", async () => {
    const t = tempDir("enc-tmpfs-");
    cleanups.push(t.cleanup);
    const ram = ramDir();
    const dir = path.join(t.dir, "store");
    let seen: ReturnType<typeof ramFiles> = [];
    let leftover: ReturnType<typeof ramFiles> = [];
    // Kill the child while a clear index file exists (retrying: the window is a few milliseconds).
    for (let attempt = 0; attempt < 8 && leftover.length === 0; attempt++) {
      const child = spawnChild(dir, ram);
      await waitForLine(child, /^filled$/);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const files = ramFiles(ram).filter((f) => f.size > 0);
        if (files.length > 0) {
          child.kill("SIGKILL");
          seen.push(...files);
          break;
        }
        await new Promise((r) => setImmediate(r));
      }
      await waitForExit(child);
      leftover = ramFiles(ram).filter((f) => f.size > 0);
    }
    expect(seen.length).toBeGreaterThan(0);
    // Never readable by anyone else: the file 0600, its directory 0700.
    for (const f of seen) {
      count(`clear index ${path.basename(f.file)} mode ${f.mode.toString(8)} in dir ${f.dirMode.toString(8)}`, f.mode === 0o600 && f.dirMode === 0o700);
      expect(f.mode).toBe(0o600);
      expect(f.dirMode).toBe(0o700);
    }
    expect(leftover.length, "a SIGKILL mid-compaction left the clear index behind (the scenario under test)").toBeGreaterThan(0);
    // The kill can land while hnswlib is still writing the file, so only "some clear bytes were left" is certain.
    expect(leftover.reduce((s, f) => s + f.size, 0)).toBeGreaterThan(0);

    // A wrong-key open changes nothing in the directory: not the dead child's LOCK, not any file.
    const before = snapshot(dir);
    expect(Object.keys(before)).toContain("LOCK");
    const wrong = new HNSWStore({ path: dir, index: { dims: 384, embeddings: new FakeEmbeddings({ dims: 384 }), fields: ["text"] }, encryption: { key: randomBytes(32), ramDir: ram } });
    const err = await wrong.open().catch((e: unknown) => e);
    count("wrong key refused with EncryptionError", err instanceof EncryptionError);
    expect(err).toBeInstanceOf(EncryptionError);
    const after = snapshot(dir);
    count("wrong-key open left every file (LOCK included) byte-identical", JSON.stringify(after) === JSON.stringify(before));
    expect(after).toEqual(before);

    // Any encrypted store opening on the same tmpfs (here: another directory) removes the dead process's clear copy.
    const other = new HNSWStore({ path: path.join(t.dir, "other"), encryption: { key: randomBytes(32), ramDir: ram } });
    await other.open();
    const remaining = ramFiles(ram);
    count("the dead process's clear index removed at the next open", remaining.length === 0 && fs.readdirSync(ram).length === 0);
    expect(fs.readdirSync(ram)).toEqual([]);
    await other.close();

    // The right key still opens everything the child wrote.
    const right = new HNSWStore({ path: dir, index: { dims: 384, embeddings: new FakeEmbeddings({ dims: 384 }), fields: ["text"] }, encryption: { key: KEY, ramDir: ram } });
    expect(await right.count()).toBe(ITEMS);
    await right.close();
    count("its own private RAM directory removed at close", fs.readdirSync(ram).length === 0);
    expect(fs.readdirSync(ram)).toEqual([]);
  });
});
