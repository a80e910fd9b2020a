/**
 * The CLI on a new user's first contact, spawned as a real process on real
 * directories: `init` and `serve` create a store in a new or empty directory
 * (with the real local embedder) and refuse one holding other files; `serve`
 * says what it does on SIGTERM and exits 0; a closed pipe ends a command
 * quietly; errors come before progress; counts have the right plural; a
 * note about a live directory does not ask to retry what worked.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { readManifest } from "../../src/store/hnsw/snapshot.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { spawnStoreChild, waitForLine } from "../helpers/spawn-child.js";
import { tempDir } from "../helpers/temp-dir.js";
import { CLI, collect, root, runCli, seedStore, spawnCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 300_000 });

let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = tempDir("cli-first-");
});
afterEach(() => tmp.cleanup());

const LOCAL = /^UniversalSentenceEncoderEmbeddings:/;

/** Everything in a directory, name → bytes, to show a refusal changed nothing. */
const snapshot = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]));

/** Resolves with the serve URL from its `--json` first line. */
function serveUrl(child: ReturnType<typeof spawnCli>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}) before listening`)));
  });
}

describe("init", () => {
  it("creates an empty store with the local embedder in a missing or empty directory; leaves an existing store unchanged", async () => {
    const missing = path.join(tmp.dir, "a", "b");
    const empty = path.join(tmp.dir, "empty");
    fs.mkdirSync(empty);
    const [made, madeEmpty] = await Promise.all([runCli(["init", "--path", missing]), runCli(["--json", "init", "--path", empty])]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^created an empty store in .*a\/b \(embedder UniversalSentenceEncoderEmbeddings:.*, 512 dims\)$/m);
    expect(readManifest(missing)?.index).toMatchObject({ dims: 512, embedder: expect.stringMatching(LOCAL) });
    expect(JSON.parse(madeEmpty.stdout)).toMatchObject({ path: empty, created: true, dims: 512, embedder: expect.stringMatching(LOCAL) });

    const before = snapshot(missing);
    const again = await runCli(["init", "--path", missing]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/is already a store .*; left unchanged/);
    expect(snapshot(missing)).toEqual(before);

    // The new store takes writes and search by meaning with the embedder it recorded.
    const stats = await runCli(["--path", missing, "--json", "stats"]);
    expect(JSON.parse(stats.stdout)).toMatchObject({ items: 0, embedder: expect.stringMatching(LOCAL), dims: 512 });
  });

  it("refuses a directory holding other files, and a file, with NotAStoreDirectoryError, changing nothing", async () => {
    const other = path.join(tmp.dir, "project");
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, "notes.txt"), "mine");
    const file = path.join(tmp.dir, "file.txt");
    fs.writeFileSync(file, "x");
    const [dirRun, fileRun] = await Promise.all([runCli(["init", "--path", other]), runCli(["init", "--path", file])]);
    expect(dirRun.code).toBe(1);
    expect(dirRun.stderr).toMatch(/^error: NotAStoreDirectoryError: .*project cannot hold a langgraph-hnsw-memory store: it holds 1 other entry \(notes\.txt\)/);
    expect(dirRun.stderr.trim().split("\n")).toHaveLength(1);
    expect(fileRun.code).toBe(1);
    expect(fileRun.stderr).toMatch(/NotAStoreDirectoryError: .*file\.txt cannot hold .*: it is a file, not a directory/);
    expect(fs.readdirSync(other)).toEqual(["notes.txt"]);
    expect(fs.readFileSync(file, "utf8")).toBe("x");
  });
});

describe("serve on first contact", () => {
  it("creates a store in a new directory, serves GET /v1/store/memories/{id}, and on SIGTERM says so, closes and exits 0", async () => {
    const dir = path.join(tmp.dir, "mem");
    const child = spawnCli(["--path", dir, "serve", "--port", "0", "--json"]);
    const done = collect(child);
    const url = await serveUrl(child);
    const made = await fetch(`${url}/v1/store/memories`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "Ada prefers oat milk in her coffee", user_id: "ada", id: "milk" }),
    });
    expect(made.status).toBe(201);
    const got = await fetch(`${url}/v1/store/memories/milk?user_id=ada`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: "milk", text: "Ada prefers oat milk in her coffee", namespace: ["users", "ada"] });
    // Search by meaning with the local embedder the new store recorded.
    const found = (await (
      await fetch(`${url}/v1/store/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "what does Ada drink?", user_id: "ada" }) })
    ).json()) as { memories: { id: string; score: number }[] };
    expect(found.memories[0]).toMatchObject({ id: "milk", score: expect.any(Number) });

    child.kill("SIGTERM");
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^created a new store in .*mem \(embedder UniversalSentenceEncoderEmbeddings:/m);
    expect(r.stderr).toMatch(/^SIGTERM received: closing the server/m);
    expect(r.stderr).toMatch(/^closed; bye$/m);
    // The acknowledged write is on disk, and the directory is free again.
    const store = new HNSWStore({ path: dir, withoutEmbedder: true });
    expect((await store.get(["users", "ada"], "milk"))?.value.text).toBe("Ada prefers oat milk in her coffee");
    await store.close();
  });

  it("refuses a non-empty directory that is not a store, and leaves no store behind when it cannot listen", async () => {
    const other = path.join(tmp.dir, "src");
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, "index.ts"), "export {};\n");
    const refused = await runCli(["--path", other, "serve", "--port", "0"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: NotAStoreDirectoryError: .*src cannot hold a langgraph-hnsw-memory store/);
    expect(refused.stdout).toBe("");
    expect(fs.readdirSync(other)).toEqual(["index.ts"]);

    // A port in use: the store made for this run is taken back.
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const fresh = path.join(tmp.dir, "fresh");
      const r = await runCli(["--path", fresh, "serve", "--port", String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/EADDRINUSE/);
      expect(fs.existsSync(fresh)).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe("a good Unix citizen", () => {
  /** Runs `cli ARGS | READER` in bash and returns the CLI's own exit code and stderr. */
  function piped(args: string[], reader: string): Promise<{ code: number; stderr: string }> {
    const quoted = [process.execPath, "--import", "tsx", CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const child = spawn("bash", ["-c", `${quoted} 2>"$ERR" | ${reader}; exit \${PIPESTATUS[0]}`], {
      cwd: root,
      env: { ...process.env, ERR: path.join(tmp.dir, "stderr.txt"), LANGGRAPH_MEMORY_PATH: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stderr: fs.readFileSync(path.join(tmp.dir, "stderr.txt"), "utf8") })));
  }

  it("`export | head -n 1` and `ls --all | true` exit quietly with 0 when the reader closes the pipe", async () => {
    const dir = path.join(tmp.dir, "store");
    await seedStore(dir, 3000);
    const head = await piped(["--path", dir, "export"], "head -n 1 >/dev/null");
    expect(head.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(head.code, head.stderr).toBe(0);
    const closed = await piped(["--path", dir, "--json", "ls", "--all"], "true");
    expect(closed.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(closed.code, closed.stderr).toBe(0);
  });

  it("import of a missing file prints the error and nothing before it, and creates nothing", async () => {
    const dir = path.join(tmp.dir, "target");
    const r = await runCli(["--path", dir, "import", path.join(tmp.dir, "nope.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: cannot read ${path.join(tmp.dir, "nope.jsonl")}: ENOENT\n`);
    expect(r.stdout).toBe("");
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("counts read in the right number: 1 memory in 1 namespace", async () => {
    const dir = path.join(tmp.dir, "one");
    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    await store.put(["users", "1"], "k", { text: "the only memory" });
    await store.close();
    const [stats, compact] = [await runCli(["--path", dir, "stats"]), await runCli(["--path", dir, "compact"])];
    expect(stats.stdout).toMatch(/^items: +1 \(1 memory in 1 namespace, 0 bookkeeping namespaces\)$/m);
    expect(compact.stdout).toMatch(/^compacted: 1 item, /);
    const verify = await runCli(["--path", dir, "verify"]);
    expect(verify.stdout).toMatch(/^ok: 1 snapshot item, 1 vector checked, 0 log records/m);
  });

  it("a read of a live directory says what it shows, not to retry; a write says what to do", async () => {
    const dir = path.join(tmp.dir, "live");
    const holder = spawnStoreChild([dir, "hold"]);
    try {
      await waitForLine(holder, /^open$/);
      const [ls, compact] = await Promise.all([runCli(["--path", dir, "ls"]), runCli(["--path", dir, "compact"])]);
      expect(ls.code, ls.stderr).toBe(0);
      expect(ls.stderr).toBe(`note: store directory ${dir} is in use by process ${holder.pid} (its LOCK file); showing a read-only view of its last snapshot plus the log\n`);
      expect(compact.code).toBe(1);
      expect(compact.stderr).toMatch(/stop that process or close its store, then retry \(read-only commands such as stats, ls/);
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
