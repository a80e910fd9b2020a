/**
 * The real `langgraph-memory` CLI, spawned (from source under tsx) on real
 * store directories. The embedder is the deterministic FakeEmbeddings (a
 * TEST DOUBLE, loaded through `--embeddings <module>`); store, index and
 * files are real.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { decodeVector, encodeVector } from "../../src/embeddings/vector-codec.js";
import { EXPORT_FORMAT, exportStore, importStore } from "../../src/migrate/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { FAKE, runCli, seedStore } from "./run-cli.js";

// Each spawn loads Node, tsx and LangGraph: seconds apiece on a loaded machine.
vi.setConfig({ testTimeout: 300_000 });

let tmp: { dir: string; cleanup: () => void };
let dir: string;
beforeEach(async () => {
  tmp = tempDir("cli-");
  dir = path.join(tmp.dir, "store");
  await seedStore(dir);
});
afterEach(() => tmp.cleanup());

const json = (s: string) => JSON.parse(s);
/** Runs CLI commands one after another: each opens (and locks) the directory. */
const sequential = async <T>(runs: (() => Promise<T>)[]): Promise<T[]> => {
  const out: T[] = [];
  for (const run of runs) out.push(await run());
  return out;
};

describe("langgraph-memory: reading", () => {
  it("stats, ls and get, as tables and as JSON, without the embedder", async () => {
    const [stats, ls, lsHuman, lsAll, lsCursors, get] = await sequential([
      () => runCli(["--path", dir, "--json", "stats"]),
      () => runCli(["--path", dir, "ls", "users", "--json"]),
      () => runCli(["--path", dir, "ls"]),
      () => runCli(["--path", dir, "ls", "--all"]),
      () => runCli(["--path", dir, "ls", "memory_cursors", "--json"]),
      () => runCli(["--path", dir, "get", "users.42", "tea", "--json"]),
    ]);
    expect(stats.code, stats.stderr).toBe(0);
    const s = json(stats.stdout);
    expect(s).toMatchObject({ items: 5, memories: 4, namespaces: 2, cursors: 1, vectors: 3, embedder: "FakeEmbeddings:fake-bag-of-words-16", dims: 16 });
    expect(json(ls.stdout)).toEqual([
      { namespace: ["users", "42"], items: 2 },
      { namespace: ["users", "7"], items: 2 },
    ]);
    expect(lsHuman.stdout).toMatch(/^NAMESPACE\s+ITEMS$/m);
    // Bookkeeping namespaces are hidden by HNSWStore's own rule: listed with --all, or a prefix naming their root.
    expect(lsHuman.stdout).not.toMatch(/memory_cursors/);
    expect(lsHuman.stdout).toMatch(/^users\.42\s+2$/m);
    expect(lsAll.stdout).toMatch(/^memory_cursors\.users\.42\s+1$/m);
    expect(lsAll.stdout).toMatch(/^users\.42\s+2$/m);
    expect(json(lsCursors.stdout)).toEqual([{ namespace: ["memory_cursors", "users", "42"], items: 1 }]);
    const item = json(get.stdout);
    expect(item.value).toEqual({ text: "User likes green tea a lot.", source: "tool" });
    expect(Date.parse(item.updatedAt)).toBeGreaterThan(Date.parse(item.createdAt) - 1);
  });

  it("search: by keywords without the embedder (saying so), by meaning with --embeddings, with --filter and --limit", async () => {
    const [kw, sem, filtered] = await sequential([
      () => runCli(["--path", dir, "search", "users", "green tea", "--json"]),
      () => runCli(["--path", dir, "search", "users", "tea green", "--embeddings", FAKE, "--limit", "2", "--json"]),
      () => runCli(["--path", dir, "search", "users", "user", "--filter", '{"source":"tool"}', "--json"]),
    ]);
    expect(kw.code, kw.stderr).toBe(0);
    expect(kw.stderr).toContain("ranking by keywords: the directory's vectors were built by FakeEmbeddings:fake-bag-of-words-16");
    expect(json(kw.stdout)[0].key).toBe("tea");
    expect(sem.code, sem.stderr).toBe(0);
    const hits = json(sem.stdout);
    expect(hits).toHaveLength(2);
    expect(hits[0].key).toBe("tea");
    expect(hits[0].score).toBeGreaterThan(hits[1].score ?? -1);
    expect(json(filtered.stdout).map((h: { key: string }) => h.key)).toEqual(["tea"]);
  });
});

describe("langgraph-memory: bad arguments are one line and exit 1", () => {
  it("unknown command, no directory, bad namespace, bad numbers, bad filter, missing item, a module that is no embedder", async () => {
    const results = await Promise.all([
      runCli(["--path", dir, "frobnicate"]),
      runCli(["ls"]),
      runCli(["--path", dir, "get", "users..42", "x"]),
      runCli(["--path", dir, "search", "users", "q", "--limit", "0"]),
      runCli(["--path", dir, "search", "users", "q", "--filter", "{oops"]),
      runCli(["--path", dir, "get", "users.42", "nope"]),
      runCli(["--path", path.join(tmp.dir, "absent"), "stats"]),
      runCli(["--path", dir, "reindex", "--embeddings", "word2vec"]),
    ]);
    const messages = [
      /unknown command 'frobnicate'/,
      /no store directory: pass --path DIR or set LANGGRAPH_MEMORY_PATH/,
      /namespace \["users","","42"\] has an empty label/,
      /--limit must be an integer >= 1, got "0"/,
      /--filter is not valid JSON/,
      /no item "nope" in users\.42/,
      /no store directory at .*absent/,
      /--embeddings must be local, openai or a path to an embedder module, got "word2vec"/,
    ];
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(messages[i]);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
    });
    const debug = await runCli(["--path", dir, "--debug", "get", "users.42", "nope"]);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});

describe("langgraph-memory: export, import, migrate", () => {
  /** `langgraph-memory export -o file` of the seeded directory, checked to succeed. */
  const cliExport = async (file: string) => {
    const r = await runCli(["--path", dir, "export", "-o", file]);
    expect(r.code, r.stderr).toBe(0);
    return r;
  };

  it("export → import into a new directory → export again is identical, and the copy searches by meaning with the reused vectors", async () => {
    const file1 = path.join(tmp.dir, "a.jsonl");
    const file2 = path.join(tmp.dir, "b.jsonl");
    const copy = path.join(tmp.dir, "copy");
    expect((await cliExport(file1)).stderr).toMatch(/export: 5\/5 \(100%\)/);
    const imp = await runCli(["--path", copy, "import", file1]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toMatch(/imported 5 items .*\(stored vectors reused\)/);
    const exp2 = await runCli(["--path", copy, "export", "-o", file2]);
    expect(exp2.code, exp2.stderr).toBe(0);
    const lines = (f: string) => fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const [h1, ...a] = lines(file1);
    const [h2, ...b] = lines(file2);
    expect({ ...h2, exportedAt: 0 }).toEqual({ ...h1, exportedAt: 0 });
    const sortKey = (x: { namespace: string[]; key: string }) => JSON.stringify([x.namespace, x.key]);
    expect(h1).toMatchObject({ format: EXPORT_FORMAT, version: 1, embedder: { identity: "FakeEmbeddings:fake-bag-of-words-16", dims: 16, fields: ["$"] } });
    const strip = (items: Record<string, unknown>[]) =>
      items.map(({ v, ...rest }) => ({ ...rest, v: (v as [string, string][] | undefined)?.map(([f]) => f) })).sort((x, y) => sortKey(x as never).localeCompare(sortKey(y as never)));
    expect(strip(b)).toEqual(strip(a));
    expect(typeof a.find((i) => i.key === "tea").expiresAt).toBe("number");
    // Vectors equal to float32 precision.
    const vec = (items: { key: string; v?: [string, string][] }[], key: string) => Array.from(decodeVector(items.find((i) => i.key === key)!.v![0][1])!);
    const va = vec(a, "berlin");
    vec(b, "berlin").forEach((x, i) => expect(x).toBeCloseTo(va[i], 6));
    // The copy records the same embedder and answers a search by meaning.
    const store = new HNSWStore({ path: copy, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    const hits = await store.search(["users", "42"], { query: "berlin" });
    expect(hits[0].key).toBe("berlin");
    expect(hits[0].score).toBeGreaterThan(0.3);
    await store.close();
  });

  it("export writes what importStore reads, import reads what exportStore writes, and files of the old CLI format still import", async () => {
    const cliFile = path.join(tmp.dir, "cli.jsonl");
    const libFile = path.join(tmp.dir, "lib.jsonl");
    const legacyFile = path.join(tmp.dir, "legacy.jsonl");
    await cliExport(cliFile);
    // CLI export → the library's importStore, vectors copied.
    const viaLib = new HNSWStore({ path: path.join(tmp.dir, "via-lib"), index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    const report = await importStore(cliFile, viaLib);
    expect(report).toMatchObject({ items: 5, vectorsCopied: true, verified: true });
    expect((await viaLib.get(["users", "42"], "berlin"))?.value).toEqual({ text: "User lives in Berlin.", source: "extractor" });
    expect((await viaLib.search(["users"], { query: "berlin" }))[0].key).toBe("berlin");
    await viaLib.close();
    // The library's exportStore → CLI import, vectors reused, timestamps kept.
    const source = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    const tea = await source.get(["users", "42"], "tea", { refreshTtl: false });
    await exportStore(source, libFile);
    await source.close();
    const viaCli = path.join(tmp.dir, "via-cli");
    const imp = await runCli(["--path", viaCli, "import", libFile]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toMatch(/imported 5 items .*\(stored vectors reused\)/);
    // The old CLI format: a `$export` header, ISO times, `vectors` pairs.
    const vector = await new FakeEmbeddings({ dims: 16 }).embedQuery("User rides a bike.");
    fs.writeFileSync(
      legacyFile,
      [
        { $export: "langgraph-hnsw-memory-export", version: 1, embedder: "FakeEmbeddings:fake-bag-of-words-16", dims: 16, fields: ["$"], items: 2, exportedAt: "2026-01-01T00:00:00Z" },
        { namespace: ["users", "9"], key: "bike", value: { text: "User rides a bike." }, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-02T00:00:00.000Z", vectors: [["$", encodeVector(vector)]] },
        { namespace: ["users", "9"], key: "raw", value: { n: 1 }, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", index: false },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    const legacy = await runCli(["--path", viaCli, "import", legacyFile]);
    expect(legacy.code, legacy.stderr).toBe(0);
    expect(legacy.stdout).toMatch(/imported 2 items .*\(stored vectors reused\)/);
    const copy = new HNSWStore({ path: viaCli, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    const teaCopy = await copy.get(["users", "42"], "tea", { refreshTtl: false });
    expect(teaCopy?.value).toEqual(tea?.value);
    expect(teaCopy?.createdAt.getTime()).toBe(tea?.createdAt.getTime());
    expect(teaCopy?.updatedAt.getTime()).toBe(tea?.updatedAt.getTime());
    const bike = await copy.get(["users", "9"], "bike");
    expect(bike?.createdAt.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(bike?.updatedAt.toISOString()).toBe("2026-01-02T00:00:00.000Z");
    expect((await copy.search(["users", "9"], { query: "bike" }))[0]).toMatchObject({ key: "bike" });
    expect(await copy.count()).toBe(7);
    await copy.close();
  });

  it("import rejects a bad file before writing anything; migrate copies to a new directory; an unreachable postgres:// fails with one line", async () => {
    const bad = path.join(tmp.dir, "bad.jsonl");
    fs.writeFileSync(bad, '{"$export":"langgraph-hnsw-memory-export","version":1,"embedder":null,"dims":null,"fields":null,"items":2}\n{"namespace":["a"],"key":"k","value":{"t":1},"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}\n{not json\n');
    const target = path.join(tmp.dir, "target");
    const migrated = path.join(tmp.dir, "migrated");
    const [imp, mig, pg] = await Promise.all([
      runCli(["--path", target, "import", bad]),
      runCli(["--path", dir, "migrate", "--to", migrated, "--json"]),
      runCli(["--path", dir, "migrate", "--to", "postgres://127.0.0.1:1/db", "--embeddings", FAKE]),
    ]);
    expect(imp.code).toBe(1);
    expect(imp.stderr).toMatch(/bad\.jsonl line 3 is not valid JSON/);
    expect(fs.existsSync(target)).toBe(false);
    expect(mig.code, mig.stderr).toBe(0);
    expect(json(mig.stdout)).toMatchObject({ imported: 5, reusedVectors: true });
    expect(pg.code).toBe(1);
    expect(pg.stderr.trim().split("\n").filter((l) => l.startsWith("error:"))).toHaveLength(1);
    const store = new HNSWStore({ path: migrated, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    expect((await store.get(["users", "42"], "berlin"))?.value).toEqual({ text: "User lives in Berlin.", source: "extractor" });
    expect(await store.count()).toBe(5);
    await store.close();
  });
});

describe("langgraph-memory: maintenance", () => {
  it("forget removes a user's memories and extraction cursors from every file; compact and verify pass afterwards", async () => {
    const noConfirm = await runCli(["--path", dir, "forget", "users.42"]);
    expect(noConfirm.code).toBe(1);
    expect(noConfirm.stderr).toMatch(/pass --yes to confirm/);
    const forget = await runCli(["--path", dir, "forget", "users.42", "--yes", "--json"]);
    expect(forget.code, forget.stderr).toBe(0);
    expect(json(forget.stdout)).toMatchObject({ namespace: ["users", "42"], person: "42", memories: 2, cursors: 1, history: 0 });
    expect(json(forget.stdout).kinds.facts).toMatchObject({ items: 2, cursors: 1 });
    for (const f of fs.readdirSync(dir)) {
      const bytes = fs.readFileSync(path.join(dir, f), "latin1");
      expect(bytes, f).not.toContain("Berlin");
      expect(bytes, f).not.toContain("green tea");
      expect(bytes, f).not.toContain("thread-1");
    }
    const [compact, verify] = [await runCli(["--path", dir, "compact"]), await runCli(["--path", dir, "verify", "--json"])];
    expect(compact.code, compact.stderr).toBe(0);
    expect(compact.stdout).toMatch(/compacted: 2 items/);
    expect(verify.code, verify.stderr).toBe(0);
    expect(json(verify.stdout)).toMatchObject({ ok: true, problems: [] });
    const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    expect(await store.count(["users", "42"])).toBe(0);
    expect(await store.count(["memory_cursors"])).toBe(0);
    expect(await store.count(["users", "7"])).toBe(2);
    await store.close();
  });
});
