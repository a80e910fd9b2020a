import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore, StoreLockedError } from "../../src/index.js";
import { deadPid, lockRace } from "../helpers/lock-race.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dir(): string {
  const t = tempDir("lock-race-");
  cleanups.push(t.cleanup);
  return t.dir;
}

describe("directory lock under a race", () => {
  it("8 processes on a stale lock of a dead pid: exactly one holds it, the others get StoreLockedError", async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, "LOCK"), JSON.stringify({ pid: await deadPid(), since: new Date(0).toISOString() }));
    const out = await lockRace(d, 8);
    expect(out.filter((o) => o === "held")).toHaveLength(1);
    expect(out.filter((o) => o === "locked StoreLockedError")).toHaveLength(7);
    expect(fs.readdirSync(d)).toEqual([]); // the holder released it; no guard or temp file left
  });

  it("a lock file being written at this instant (empty, just created) is held, not stale", async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, "LOCK"), "");
    const err = await new HNSWStore({ path: d }).open().catch((e) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect(fs.readFileSync(path.join(d, "LOCK"), "utf8")).toBe("");
    // Once it is old enough to be a crash's leftover, it is taken over.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(d, "LOCK"), old, old);
    const store = new HNSWStore({ path: d });
    await store.put(["a"], "k", { v: 1 });
    await store.close();
  });

  it("4 stores racing on a fresh directory: one writer, and its acknowledged write survives", async () => {
    const d = dir();
    const out = await lockRace(d, 4, { store: true });
    expect(out.filter((o) => o === "held")).toHaveLength(1);
    const store = new HNSWStore({ path: d });
    expect(await store.count()).toBe(1);
    await store.close();
  });
});
