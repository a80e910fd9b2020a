import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CachedEmbeddings, HNSWStore, InvalidArgumentError, StoreClosedError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { deadPid } from "../helpers/lock-race.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function newDir(): string {
  const t = tempDir("purge-");
  cleanups.push(t.cleanup);
  return t.dir;
}

const embeddings = new FakeEmbeddings({ dims: 16 });
const open = (dir: string, extra: Partial<ConstructorParameters<typeof HNSWStore>[0]> = {}) =>
  new HNSWStore({ path: dir, index: { dims: 16, embeddings, fields: ["text"] }, ...extra });

const secret = (i: number) => `zanzibarian secret fact ${i}`;
const vectorBytes = (i: number) => Buffer.from(new Float32Array(embeddings.embedText(secret(i))).buffer);

/** Whether any file in `dir` holds a text or a vector (raw or base64) of user 42. */
function leftovers(dir: string): string[] {
  const found: string[] = [];
  for (const f of fs.readdirSync(dir)) {
    const b = fs.readFileSync(path.join(dir, f));
    if (b.includes("zanzibarian")) found.push(`${f}: text`);
    for (let i = 0; i < 10; i++) {
      if (b.includes(vectorBytes(i)) || b.includes(vectorBytes(i).toString("base64"))) found.push(`${f}: vector ${i}`);
    }
  }
  return found;
}

async function seed(dir: string): Promise<void> {
  const a = open(dir);
  for (let i = 0; i < 10; i++) await a.put(["users", "42"], `s${i}`, { text: secret(i) });
  for (let i = 0; i < 10; i++) await a.put(["users", "7"], `o${i}`, { text: `ordinary note ${i}` });
  await a.close();
  expect(leftovers(dir).length).toBeGreaterThan(0);
}

describe("deleted data leaves the disk", () => {
  it("a fresh process that only deletes and closes leaves nothing of the user in any file (embedding cache included)", async () => {
    const dir = newDir();
    await seed(dir);
    const b = open(dir);
    expect(await b.deleteNamespace(["users", "42"], { purge: false })).toBe(10);
    await b.close();
    expect(leftovers(dir)).toEqual([]);
    const c = open(dir);
    expect(await c.count(["users", "7"])).toBe(10);
    await c.close();
  });

  it("deleteNamespace purges by default: nothing is left when it resolves, without close() or compact()", async () => {
    const dir = newDir();
    await seed(dir);
    const b = open(dir);
    cleanups.push(() => b.close());
    expect(await b.deleteNamespace(["users", "42"])).toBe(10);
    expect(leftovers(dir)).toEqual([]);
    expect((await b.search(["users", "7"], { query: "ordinary note 3", limit: 1 }))[0].key).toBe("o3");
  });

  it("with purge: false the data waits for the next compaction", async () => {
    const dir = newDir();
    await seed(dir);
    const b = open(dir);
    cleanups.push(() => b.close());
    await b.deleteNamespace(["users", "42"], { purge: false });
    expect(leftovers(dir).length).toBeGreaterThan(0);
    await b.compact();
    expect(leftovers(dir)).toEqual([]);
    await expect(b.deleteNamespace(["users"], { purge: "yes" as never })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it("removes embedding-cache temp files left by a crashed rewrite when the store opens", async () => {
    const dir = newDir();
    await seed(dir);
    const stray = path.join(dir, `embedding-cache.jsonl.${await deadPid()}.tmp`);
    fs.writeFileSync(stray, fs.readFileSync(path.join(dir, "embedding-cache.jsonl")));
    const b = open(dir);
    await b.open();
    expect(fs.existsSync(stray)).toBe(false);
    await b.close();
  });

  it("expired items are swept at open and left out of every snapshot", async () => {
    const dir = newDir();
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    const a = open(dir, { clock });
    await a.put(["users", "42"], "s0", { text: secret(0) }, undefined, { ttl: 1 });
    await a.put(["users", "7"], "o0", { text: "ordinary note" });
    now += 2 * 60_000;
    await a.compact();
    expect(leftovers(dir)).toEqual([]);
    await a.put(["users", "42"], "s1", { text: secret(1) }, undefined, { ttl: 1 });
    const copy = newDir();
    fs.cpSync(dir, copy, { recursive: true }); // as a crash leaves it
    await a.close();
    now += 2 * 60_000;
    const b = open(copy, { clock });
    await b.open();
    const wal = fs.readdirSync(copy).find((f) => f.startsWith("wal-"))!;
    expect(fs.readFileSync(path.join(copy, wal), "utf8")).toMatch(/"t":"del","ns":\["users","42"\],"key":"s1"/);
    await b.close();
  });
});

describe("embedding cache entries are checksummed", () => {
  it("a corrupt entry is dropped and recomputed, never served", async () => {
    const dir = newDir();
    const file = path.join(dir, "cache.jsonl");
    const a = new CachedEmbeddings({ embeddings, file });
    const [right] = await a.embedDocuments(["hello world"]);
    await a.close();
    const lines = fs.readFileSync(file, "utf8").split("\n");
    const entry = JSON.parse(lines[1]);
    entry.v = (entry.v[0] === "A" ? "B" : "A") + entry.v.slice(1); // a flipped vector, its checksum now wrong
    lines[1] = JSON.stringify(entry);
    fs.writeFileSync(file, lines.join("\n"));
    const b = new CachedEmbeddings({ embeddings, file });
    const [again] = await b.embedDocuments(["hello world"]);
    expect(again).toEqual(right);
    expect(b.stats.misses).toBe(1);
    await b.close();
  });
});

describe("close()", () => {
  it("operations after close() has begun fail with StoreClosedError; open() while close() is pending gives a working store", async () => {
    const dir = newDir();
    const s = open(dir);
    await s.put(["users", "42"], "k", { text: "x" });
    const deleting = s.deleteNamespace(["users", "42"]).catch((e) => e);
    const closing = s.close();
    const late = s.put(["users", "42"], "k2", { text: "y" }).catch((e) => e);
    expect(await deleting).toBeInstanceOf(StoreClosedError);
    expect(await late).toBeInstanceOf(StoreClosedError);
    await s.open();
    await closing;
    expect(await s.count()).toBe(1);
    await s.put(["users", "42"], "k3", { text: "z" });
    expect(await s.count()).toBe(2);
    await s.close();
  });
});

describe("a batch is validated whole before anything is applied", () => {
  it.each([
    ["a bigint operand", { obj: { $eq: { y: 1n } } }],
    ["a cyclic operand", (() => { const o: Record<string, unknown> = {}; o.self = o; return { obj: { $eq: o } }; })()],
  ])("a search with %s rejects the batch and its put is not written", async (_name, filter) => {
    const dir = newDir();
    const s = open(dir);
    const err = await s.batch([{ namespace: ["b"], key: "k", value: { text: "x" } }, { namespacePrefix: ["b"], filter, limit: 5 }]).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    await s.close();
    const again = open(dir);
    expect(await again.count()).toBe(0);
    await again.close();
  });

  it("rejects a TTL that cannot be represented", async () => {
    const s = open(newDir());
    await expect(s.put(["t"], "k", { text: "x" }, undefined, { ttl: Number.MAX_VALUE })).rejects.toBeInstanceOf(InvalidArgumentError);
    await s.close();
  });
});

describe("a compaction that fails after the log append", () => {
  it("does not fail the write: it is logged, and retried after the next write", async () => {
    const dir = newDir();
    const warnings: string[] = [];
    const s = open(dir, { compactAfterBytes: 1, logger: { warn: (w: string) => warnings.push(w) } });
    await s.open();
    fs.mkdirSync(path.join(dir, "items-1.jsonl")); // the next snapshot cannot be written
    await s.put(["c"], "k0", { text: "first" }); // resolves: the write is durable in the log
    expect(warnings.join()).toMatch(/compaction failed.*safe in the log/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).generation).toBe(0);
    fs.rmdirSync(path.join(dir, "items-1.jsonl"));
    await s.put(["c"], "k1", { text: "second" });
    expect(JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).generation).toBeGreaterThan(0);
    await s.close();
    const again = open(dir);
    expect(await again.count()).toBe(2);
    await again.close();
  });
});
