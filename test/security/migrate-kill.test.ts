/**
 * `langgraph-memory migrate --to DIR`, SIGKILLed mid-run (a real process,
 * a real signal): no partial store may be left where the target should be,
 * the half-built copy is refused by open and verify with
 * IncompleteMigrationError, and a re-run starts over and finishes.
 * FakeEmbeddings (a TEST DOUBLE) made the source's vectors; migrate copies them.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HNSWStore, IncompleteMigrationError } from "../../src/index.js";
import { INCOMPLETE_MARKER } from "../../src/store/hnsw/incomplete.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitForExit } from "../helpers/spawn-child.js";
import { runCli, spawnCli } from "../cli/run-cli.js";

vi.setConfig({ testTimeout: 300_000 });

const ITEMS = 6000;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function sizeOf(dir: string): number {
  try {
    return fs.readdirSync(dir).reduce((s, n) => s + fs.statSync(path.join(dir, n)).size, 0);
  } catch {
    return 0;
  }
}

describe("a killed migrate", () => {
  it("leaves no store at --to; the staging copy is refused by open and verify; a re-run starts over and finishes", async () => {
    const t = tempDir("migrate-kill-");
    cleanups.push(t.cleanup);
    const source = path.join(t.dir, "source");
    const target = path.join(t.dir, "target");
    const store = new HNSWStore({ path: source, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
    for (let i = 0; i < ITEMS; i += 500) {
      await store.batch(Array.from({ length: 500 }, (_, j) => ({ namespace: ["users", String((i + j) % 40)], key: `k${i + j}`, value: { text: `memory ${i + j} about topic ${(i + j) % 37}` } })));
    }
    await store.close();

    // Kill it once the copy has written something, well before the end.
    let killedMidRun = false;
    for (let attempt = 0; attempt < 5 && !killedMidRun; attempt++) {
      const child = spawnCli(["--path", source, "migrate", "--to", target]);
      cleanups.push(() => child.kill("SIGKILL"));
      const staging = () => fs.readdirSync(t.dir).filter((n) => n.startsWith(".target.migrating-")).map((n) => path.join(t.dir, n));
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline && child.exitCode === null) {
        const s = staging()[0];
        if (s && sizeOf(s) > 20_000) {
          child.kill("SIGKILL");
          break;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      await waitForExit(child);
      killedMidRun = child.signalCode === "SIGKILL" && staging().length > 0;
      if (!killedMidRun) fs.rmSync(target, { recursive: true, force: true });
    }
    expect(killedMidRun, "the migrate was killed mid-run").toBe(true);
    const [partial] = fs.readdirSync(t.dir).filter((n) => n.startsWith(".target.migrating-")).map((n) => path.join(t.dir, n));
    expect(fs.existsSync(path.join(partial!, INCOMPLETE_MARKER))).toBe(true);
    const partialBytes = sizeOf(partial!);

    // Nothing at --to: no partial store opens cleanly under the target's name.
    expect(fs.existsSync(target)).toBe(false);
    const verifyTarget = await runCli(["--path", target, "verify"]);
    expect(verifyTarget.code).not.toBe(0);
    // The half-built copy itself is refused, by the library and by verify.
    const opened = new HNSWStore({ path: partial!, withoutEmbedder: true });
    const err = await opened.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IncompleteMigrationError);
    const verifyPartial = await runCli(["--path", partial!, "verify"]);
    expect(verifyPartial.code).not.toBe(0);
    expect(verifyPartial.stderr).toMatch(/IncompleteMigrationError|left incomplete/);

    // A re-run starts over (the dead run's staging is removed) and finishes, whole and verified.
    const rerun = await runCli(["--path", source, "migrate", "--to", target]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(fs.readdirSync(t.dir).filter((n) => n.includes(".migrating-"))).toEqual([]);
    expect(fs.existsSync(path.join(target, INCOMPLETE_MARKER))).toBe(false);
    const verify = await runCli(["--path", target, "verify"]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const copy = new HNSWStore({ path: target, withoutEmbedder: true });
    expect(await copy.count()).toBe(ITEMS);
    await copy.close();
    console.log(`migrate kill: killed with ${partialBytes} staging bytes written; refused by open and verify; re-run copied ${ITEMS}/${ITEMS}`);
  });
});
