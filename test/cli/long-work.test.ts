/**
 * The real CLI on the harder cases: verify on corrupt directories, a live
 * directory held by another process, Ctrl-C (SIGINT) during reindex, an
 * HNSWLib directory saved by @langchain/community, and `serve`. Embedders are
 * FakeEmbeddings (TEST DOUBLEs) loaded as `--embeddings` modules.
 */
import fs from "node:fs";
import path from "node:path";
import { HNSWLib } from "@langchain/community/vectorstores/hnswlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { readManifest } from "../../src/store/hnsw/snapshot.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { spawnStoreChild, waitForLine } from "../helpers/spawn-child.js";
import { tempDir } from "../helpers/temp-dir.js";
import { collect, FAKE, runCli, seedStore, SLOW, spawnCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 300_000 });

let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = tempDir("cli-long-");
});
afterEach(() => tmp.cleanup());

describe("verify", () => {
  it("passes on a healthy directory and fails (exit 1, the problem named) on a corrupt items file, a bad log line and a missing vector index", async () => {
    const dirs = ["ok", "items", "log", "vectors"].map((n) => path.join(tmp.dir, n));
    await Promise.all(dirs.map((d) => seedStore(d)));
    // items: flip a character inside a line (the footer count still matches: JSON breaks).
    const items = path.join(dirs[1], "items-1.jsonl");
    fs.writeFileSync(items, fs.readFileSync(items, "utf8").replace('"berlin",', '"berlin,'));
    // log: one more record after the snapshot, then corrupt its checksum.
    const store = new HNSWStore({ path: dirs[2], index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    await store.put(["users", "9"], "x", { text: "a later write" });
    await (store as unknown as { files: { release(): void } }).files.release(); // leave the log as a crash would
    const wal = path.join(dirs[2], "wal-1.log");
    fs.writeFileSync(wal, "0000beef" + fs.readFileSync(wal, "utf8").slice(8));
    fs.rmSync(path.join(dirs[3], "vectors-1.hnsw"));
    const [ok, bad1, bad2, bad3] = await Promise.all(dirs.map((d) => runCli(["--path", d, "verify"])));
    expect(ok.code, ok.stderr + ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ok: 5 snapshot items, 3 vectors checked/m);
    expect(bad1.code).toBe(1);
    expect(bad1.stdout).toMatch(/PROBLEM: items file .*items-1\.jsonl (is corrupt at line|.*the manifest recorded)/);
    expect(bad2.code).toBe(1);
    expect(bad2.stdout).toMatch(/PROBLEM: log .*wal-1\.log is corrupt at line 1 \(checksum mismatch\)/);
    expect(bad3.code).toBe(1);
    expect(bad3.stdout).toMatch(/PROBLEM: vector index .*vectors-1\.hnsw is missing, but 3 items refer to it/);
  });
});

describe("a live directory", () => {
  it("read commands show a read-only view (naming the pid); write commands fail naming the pid and what to do", async () => {
    const dir = path.join(tmp.dir, "live");
    const holder = spawnStoreChild([dir, "hold"]);
    try {
      await waitForLine(holder, /^open$/);
      const [ls, forget] = await Promise.all([runCli(["--path", dir, "stats", "--json"]), runCli(["--path", dir, "forget", "users.1", "--yes"])]);
      expect(ls.code, ls.stderr).toBe(0);
      expect(ls.stderr).toContain(`in use by process ${holder.pid}`);
      expect(ls.stderr).toContain("read-only view of its last snapshot plus the log");
      expect(JSON.parse(ls.stdout)).toMatchObject({ items: 0, livePid: holder.pid });
      expect(forget.code).toBe(1);
      expect(forget.stderr).toMatch(new RegExp(`in use by process ${holder.pid} .*stop that process or close its store, then retry`));
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("the read-only view includes writes still only in the log of the live writer", async () => {
    const dir = path.join(tmp.dir, "live2");
    const writer = spawnStoreChild([dir, "write-forever"]);
    try {
      await waitForLine(writer, /^ack 20$/);
      const r = await runCli(["--path", dir, "get", "users.crash", "k5", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`in use by process ${writer.pid}`);
      expect(JSON.parse(r.stdout).value).toEqual({ text: "memory number 5", i: 5 });
    } finally {
      writer.kill("SIGKILL");
    }
  });
});

describe("reindex", () => {
  it("Ctrl-C part way leaves the old index working; a full run switches the embedder", async () => {
    const dir = path.join(tmp.dir, "store");
    await seedStore(dir, 400);
    const child = spawnCli(["--path", dir, "reindex", "--embeddings", SLOW, "--batch", "8"]);
    const done = collect(child);
    await new Promise<void>((resolve) => {
      let err = "";
      child.stderr!.on("data", (d: Buffer) => {
        err += d.toString();
        if (/reindex: \d+\/\d+/.test(err)) resolve();
      });
    });
    child.kill("SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/reindex \(\d+ of 405 items embedded; the old index is kept\) cancelled; the directory was left consistent/);
    expect(readManifest(dir)?.index?.embedder).toBe("FakeEmbeddings:fake-bag-of-words-16");
    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    expect(await store.count()).toBe(405);
    expect((await store.search(["users", "42"], { query: "lives berlin" }))[0].key).toBe("berlin");
    await store.close();
    const full = await runCli(["--path", dir, "reindex", "--embeddings", SLOW, "--batch", "64", "--json"]);
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toMatchObject({ items: 405, vectors: 403, embedder: "SlowFakeEmbeddings:slow-fake-32", dims: 32 });
    const verify = await runCli(["--path", dir, "verify"]);
    expect(verify.code, verify.stdout).toBe(0);
  });
});

describe("import --from-hnswlib", () => {
  it("brings in a directory saved by LangChain's HNSWLib: documents with metadata, vectors reused", async () => {
    const src = path.join(tmp.dir, "hnswlib");
    const embeddings = new FakeEmbeddings({ dims: 16 });
    const vs = await HNSWLib.fromTexts(
      ["The office is in Lisbon.", "Invoices are due in 30 days.", "Support answers within a day."],
      [{ topic: "office" }, { topic: "billing" }, { topic: "support" }],
      embeddings,
    );
    await vs.save(src);
    const dir = path.join(tmp.dir, "store");
    const [r, noNs] = await Promise.all([
      runCli(["--path", dir, "import", "--from-hnswlib", src, "--namespace", "docs.kb", "--embeddings", FAKE, "--json"]),
      runCli(["--path", path.join(tmp.dir, "x"), "import", "--from-hnswlib", src]),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 3, reusedVectors: true });
    expect(noNs.code).toBe(1);
    expect(noNs.stderr).toMatch(/--from-hnswlib needs --namespace NS/);
    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings } });
    const calls = embeddings.documentCalls.length;
    const hits = await store.search(["docs", "kb"], { query: "when are invoices due" });
    expect(hits[0].value).toEqual({ text: "Invoices are due in 30 days.", metadata: { topic: "billing" } });
    expect(hits[0].score).toBeGreaterThan(0.5);
    expect(embeddings.documentCalls.length).toBe(calls);
    await store.close();
  });
});

describe("serve", () => {
  it("serves the memory API and the inspector on 127.0.0.1, and stops on SIGINT", async () => {
    const dir = path.join(tmp.dir, "store");
    await seedStore(dir);
    const child = spawnCli(["--path", dir, "serve", "--port", "0", "--json"]);
    const done = collect(child);
    const url = await new Promise<string>((resolve) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) resolve(m[1]);
      });
    });
    const page = await fetch(url + "/");
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("<html");
    // The memory server's own routes are there too (LangGraph's store API).
    const listed = (await (await fetch(`${url}/store/namespaces`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { namespaces: string[][] };
    expect(listed.namespaces).toContainEqual(["users", "42"]);
    const api = (await (await fetch(`${url}/inspector/api/memories?namespace=users.42`)).json()) as { memories: { key: string }[] };
    expect(api.memories.map((m: { key: string }) => m.key).sort()).toEqual(["berlin", "tea"]);
    child.kill("SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
  });
});
