/**
 * Fault injection (`npm run test:faults`): SIGKILL at random points, every
 * file kind corrupted at random offsets, the lock race, and a full disk.
 * Every case runs in a child process, so a native crash or a hang is an
 * observed outcome, not the end of the suite. Prints a table of cases and
 * outcomes; any bad outcome fails the suite.
 *
 * About 4.5 minutes of CPU in all (FAULT_ROUNDS, FAULT_CORRUPTIONS,
 * FAULT_LOCK_TRIALS scale it down); the per-test timeouts are generous so
 * that a loaded machine is slow, not failed.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { deadPid, lockRace } from "../helpers/lock-race.js";
import { crashRound, resultOf, runFaultChild } from "./run-child.js";
import { rng } from "../helpers/rng.js";

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 100);
const CORRUPTIONS = Number(process.env.FAULT_CORRUPTIONS ?? 8);
const LOCK_TRIALS = Number(process.env.FAULT_LOCK_TRIALS ?? 20);
const STORE_TRIALS = Number(process.env.FAULT_LOCK_STORE_TRIALS ?? 4);

const root = fs.mkdtempSync(path.join(os.tmpdir(), "faults-"));
type Outcome = "correct" | "named error" | string;
const table = new Map<string, Map<Outcome, number>>();
const bad: string[] = [];
function record(kase: string, outcome: Outcome, detail = ""): void {
  const row = table.get(kase) ?? new Map<Outcome, number>();
  row.set(outcome, (row.get(outcome) ?? 0) + 1);
  table.set(kase, row);
  if (outcome !== "correct" && outcome !== "named error" && outcome !== "skipped") bad.push(`${kase}: ${outcome} ${detail}`);
}

afterAll(() => {
  const lines = ["| case | tried | correct | named error | bad |", "|---|---:|---:|---:|---:|"];
  for (const [kase, row] of table) {
    const tried = [...row.values()].reduce((a, b) => a + b, 0);
    const badCount = tried - (row.get("correct") ?? 0) - (row.get("named error") ?? 0) - (row.get("skipped") ?? 0);
    lines.push(`| ${kase} | ${tried} | ${row.get("correct") ?? 0} | ${row.get("named error") ?? 0} | ${badCount} |`);
  }
  console.log(`\nFault-injection results (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "?"})\n${lines.join("\n")}\n${bad.length ? `BAD:\n${bad.join("\n")}` : "no bad outcomes"}\n`);
  fs.rmSync(root, { recursive: true, force: true });
});

type Item = { ns: string[]; key: string; text: string };
type Op =
  | { t: "put"; ns: string[]; key: string; text: string }
  | { t: "batch"; items: Item[] }
  | { t: "del"; ns: string[]; key: string }
  | { t: "delns"; ns: string[] }
  | { t: "compact" }
  | { t: "reindex"; model: string };

const nsKey = (ns: string[]) => ns.join("/");

/** Applies an acknowledged (or assumed) op to the expected state. */
function apply(state: Map<string, Item>, op: Op): void {
  if (op.t === "put") state.set(op.key, { ns: op.ns, key: op.key, text: op.text });
  else if (op.t === "batch") for (const i of op.items) state.set(i.key, i);
  else if (op.t === "del") state.delete(op.key);
  else if (op.t === "delns") for (const [k, v] of state) if (nsKey(v.ns) === nsKey(op.ns)) state.delete(k);
}

async function crashLane(lane: number, rounds: number): Promise<void> {
  const dir = path.join(root, `crash-${lane}`);
  fs.mkdirSync(dir);
  const rand = rng(lane * 7919 + 1);
  const state = new Map<string, Item>();
  for (let round = 0; round < rounds; round++) {
    const lines = await crashRound(dir, lane * 1000 + round, Math.floor(50 + rand() * 900));
    const ops: { op: Op; acked: boolean }[] = [];
    for (const line of lines) {
      if (line.startsWith("B ")) ops.push({ op: JSON.parse(line.slice(2)) as Op, acked: false });
      else if (line === "A") ops[ops.length - 1].acked = true;
    }
    for (const { op, acked } of ops) if (acked) apply(state, op);
    const inFlight = ops.find((o) => !o.acked)?.op;
    const kase = `SIGKILL during ${inFlight?.t ?? "idle"}`;
    const run = await runFaultChild(["verify", dir]);
    const res = resultOf(run);
    if (!res || run.signal || run.timedOut) {
      record(kase, run.timedOut ? "hang" : `crash (${run.signal ?? run.code})`, `round ${round}`);
      return;
    }
    if (!res.ok) {
      record(kase, `open failed: ${String(res.name)}`, `${String(res.message)} (lane ${lane} round ${round})`);
      return;
    }
    const seen = new Map((res.items as Item[]).map((i) => [i.key, i]));
    // Keys the in-flight op touches may be all before or all after it.
    const after = new Map(state);
    if (inFlight) apply(after, inFlight);
    const touched = new Set<string>();
    for (const [k, v] of state) if (after.get(k)?.text !== v.text) touched.add(k);
    for (const k of after.keys()) if (!state.has(k)) touched.add(k);
    const problems: string[] = [];
    for (const k of new Set([...state.keys(), ...seen.keys(), ...touched])) {
      if (touched.has(k)) continue;
      const want = state.get(k);
      const got = seen.get(k);
      if (want && !got) problems.push(`acknowledged ${k} lost`);
      else if (!want && got) problems.push(`${k} resurrected or invented`);
      else if (want && got && want.text !== got.text) problems.push(`${k} has the wrong text`);
    }
    const matches = (m: Map<string, Item>) => [...touched].every((k) => m.get(k)?.text === seen.get(k)?.text);
    if (touched.size && !matches(state) && !matches(after)) problems.push(`in-flight ${inFlight?.t} half-applied`);
    if ((res.badVectors as string[]).length) problems.push(`vectors not matching items: ${(res.badVectors as string[]).slice(0, 3).join(",")}`);
    if (problems.length) {
      record(kase, "lost or wrong data", `lane ${lane} round ${round}: ${problems.slice(0, 3).join("; ")}`);
      return;
    }
    record(kase, "correct");
    // Resolve the in-flight op by what was observed.
    if (touched.size) {
      if (matches(after)) for (const k of touched) after.has(k) ? state.set(k, after.get(k)!) : state.delete(k);
    }
  }
}

describe("fault injection", () => {
  it(`crash campaign: ${ROUNDS} SIGKILL rounds (2 directories in parallel)`, async () => {
    await Promise.all([crashLane(0, Math.ceil(ROUNDS / 2)), crashLane(1, Math.floor(ROUNDS / 2))]);
    expect(bad).toEqual([]);
  }, 1_800_000);

  it(`corruption: every file kind, ${CORRUPTIONS} random flips and 2 truncations each`, async () => {
    const base = path.join(root, "corrupt-base");
    const live = path.join(root, "corrupt-live");
    const embeddings = new FakeEmbeddings({ dims: 32, model: "fa" });
    const store = new HNSWStore({ path: live, index: { dims: 32, embeddings, fields: ["text"] }, logger: { warn: () => undefined } });
    const words = ["alpha", "bravo", "cedar", "delta", "ember", "fjord", "glade", "heron"];
    for (let i = 0; i < 20; i++) await store.put(["f", `g${i % 3}`], `s${i}`, { text: `${words[i % 8]} ${words[(i * 3) % 8]} snapshot ${i}` });
    await store.compact();
    for (let i = 0; i < 10; i++) await store.put(["f", `g${i % 3}`], `w${i}`, { text: `${words[i % 8]} ${words[(i * 5) % 8]} logged ${i}` });
    fs.cpSync(live, base, { recursive: true }); // as a crash leaves it: snapshot, log, cache, a stale LOCK
    await store.close();
    // The crash left a lock naming this (live) process: make it a dead one's, as after a real crash.
    fs.writeFileSync(path.join(base, "LOCK"), JSON.stringify({ pid: await deadPid(), nonce: "0".repeat(32) }));
    const baseRun = resultOf(await runFaultChild(copyOf(base, "check")))!;
    expect(baseRun, JSON.stringify(baseRun)).toMatchObject({ ok: true });
    const expected = JSON.stringify((baseRun.items as Item[]).map((i) => [i.key, i.text]).sort());

    const rand = rng(42);
    const kinds = fs.readdirSync(base).sort();
    for (const name of kinds) {
      const kind = name.replace(/-\d+\./, "-N.");
      const size = fs.statSync(path.join(base, name)).size;
      const cases: { what: string; mutate: (f: string) => void }[] = [];
      for (let c = 0; c < CORRUPTIONS; c++) {
        const offset = Math.floor(rand() * size);
        const mask = 1 + Math.floor(rand() * 255);
        cases.push({ what: `flip`, mutate: (f) => { const b = fs.readFileSync(f); b[offset] ^= mask; fs.writeFileSync(f, b); } });
      }
      const buf = fs.readFileSync(path.join(base, name));
      for (let c = 0; c < 2; c++) {
        let cut = Math.floor(rand() * size);
        // A cut exactly between two log records (or at a page boundary) is what an earlier crash leaves: not detectable, not tried.
        while (name.startsWith("wal-") && (buf[cut - 1] === 10 || cut % 4096 === 0)) cut = Math.max(1, cut - 1);
        cases.push({ what: "truncation", mutate: (f) => fs.truncateSync(f, cut) });
      }
      for (const [i, c] of cases.entries()) {
        const dir = copyOf(base, `${name}-${i}`)[1];
        c.mutate(path.join(dir, name));
        const run = await runFaultChild(["verify", dir], 60_000);
        const res = resultOf(run);
        const kase = `${c.what} in ${kind}`;
        if (run.signal || run.timedOut || !res) record(kase, run.timedOut ? "hang" : `native crash (${run.signal ?? run.code})`);
        else if (!res.ok) {
          const named = ["CorruptStoreError", "IncompatibleStoreError", "StoreLockedError"].includes(String(res.name));
          record(kase, named ? "named error" : `unnamed error ${String(res.name)}`, String(res.message));
        } else {
          const got = JSON.stringify((res.items as Item[]).map((x) => [x.key, x.text]).sort());
          if (got !== expected) record(kase, "silent wrong data", `${name} case ${i}`);
          else if ((res.badVectors as string[]).length) record(kase, "wrong vectors", `${name} case ${i}`);
          else record(kase, "correct");
        }
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    expect(bad).toEqual([]);
  }, 1_800_000);

  it(`lock race: 8 processes x ${LOCK_TRIALS} trials, fresh directory and stale lock`, async () => {
    for (const kind of ["fresh", "stale"] as const) {
      for (let t = 0; t < LOCK_TRIALS; t++) {
        const dir = path.join(root, `lock-${kind}-${t}`);
        fs.mkdirSync(dir);
        if (kind === "stale") fs.writeFileSync(path.join(dir, "LOCK"), JSON.stringify({ pid: await deadPid(), since: new Date(0).toISOString() }));
        // The first trials open whole stores (and check the winner's acknowledged write); the rest take the bare lock, which is faster.
        const withStore = t < STORE_TRIALS;
        const out = await lockRace(dir, 8, { store: withStore });
        const holders = out.filter((o) => o === "held").length;
        const losers = out.filter((o) => o === "locked StoreLockedError").length;
        let written = 1;
        if (withStore) {
          const s = new HNSWStore({ path: dir });
          written = await s.count();
          await s.close();
        }
        const kase = `lock race, ${kind} (8 processes${withStore ? ", stores writing" : ""})`;
        if (holders === 1 && losers === 7 && written === 1) record(kase, "correct");
        else record(kase, `${holders} holders, ${losers} StoreLockedError, ${written} acknowledged writes kept`, out.join(","));
      }
    }
    expect(bad).toEqual([]);
  }, 1_800_000);

  it("disk full: acknowledged writes survive, refused writes are not half-kept", async () => {
    const mnt = path.join(root, "tmpfs");
    fs.mkdirSync(mnt);
    let mounted = false;
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt], { stdio: "ignore" });
      mounted = true;
    } catch {
      // not allowed here: fall back below
    }
    try {
      const dir = path.join(mnt, "store");
      fs.mkdirSync(dir);
      const filler = path.join(mnt, "filler");
      if (mounted) {
        const st = fs.statfsSync(mnt);
        fs.writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - 400 * 1024)));
      }
      const run = mounted ? await runFaultChild(["diskfull", dir, filler], 300_000) : { stdout: "", code: 0, signal: null, timedOut: false };
      const res = resultOf(run);
      const kase = mounted ? "disk full (2 MiB tmpfs)" : "disk full (SKIPPED: mounting a tmpfs needs root)";
      if (!mounted) record(kase, "skipped");
      else if (!res || run.signal || run.timedOut) record(kase, `crash (${run.signal ?? run.code})`);
      else if ((res.lost as string[]).length || (res.rejectedButPresent as string[]).length || !(Number(res.rejected) > 0)) {
        record(kase, "lost or half-kept writes", JSON.stringify(res));
      } else record(kase, "correct", JSON.stringify(res));
      if (res) console.log(`disk full: ${JSON.stringify(res)}`);
    } finally {
      if (mounted) execFileSync("umount", [mnt]);
    }
    expect(bad).toEqual([]);
  }, 1_800_000);
});

/** A copy of `dir` named after `tag`; returns ["verify", copy]. */
function copyOf(dir: string, tag: string): [string, string] {
  const copy = path.join(root, `copy-${tag}`);
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(dir, copy, { recursive: true });
  return ["verify", copy];
}
