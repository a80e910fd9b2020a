import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore, IncompatibleStoreError } from "../../src/index.js";
import { crcHex } from "../../src/store/hnsw/checksum.js";
import { FORMAT_VERSION } from "../../src/store/hnsw/snapshot.js";
import { allBytes } from "../helpers/all-bytes.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

// Directories written by the format-2 code itself (see test/fixtures/format-2/generate.mts).
const fixtures = path.resolve(import.meta.dirname, "../fixtures/format-2");
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, "expected.json"), "utf8"));
const T0: number = expected.T0;
const A = ["users", "alice", "memories"];
const B = ["users", "bob", "memories"];

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function copyFixture(name: string): string {
  const t = tempDir("migrate-");
  cleanups.push(t.cleanup);
  fs.cpSync(path.join(fixtures, name), t.dir, { recursive: true });
  return t.dir;
}

const open = (dir: string, encrypted: boolean, now: number) =>
  new HNSWStore({
    path: dir,
    index: { dims: 16, embeddings: new FakeEmbeddings(), fields: ["text"] },
    embeddingCache: false,
    clock: () => now,
    ...(encrypted ? { encryption: { key: Buffer.from(expected.keyHex, "hex") } } : {}),
  });

const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8"));
const byScore = (hits: { key: string; score?: number; namespace: string[] }[]) =>
  hits.map((h) => ({ ns: h.namespace.join("/"), key: h.key, score: Math.round((h.score ?? 0) * 1e5) / 1e5 })).sort((a, b) => b.score - a.score || (a.ns + a.key).localeCompare(b.ns + b.key));

/** Everything the old code returned: expiries, items, search hits (read without refreshing TTLs). */
async function expectSameAsFormat2(store: HNSWStore, want: typeof expected.plain): Promise<void> {
  expect((await store.expiryOf(A, "job"))?.toISOString()).toBe(want.expiry.job);
  expect((await store.expiryOf(B, "trip"))?.toISOString()).toBe(want.expiry.trip);
  expect((await store.expiryOf(B, "gone-soon"))?.toISOString()).toBe(want.expiry.goneSoon);
  const items = (await store.search(["users"], { limit: 100, refreshTtl: false })).map((i) => ({ namespace: i.namespace, key: i.key, value: i.value, createdAt: i.createdAt.toISOString(), updatedAt: i.updatedAt.toISOString() }));
  const sortItems = (xs: { namespace: string[]; key: string }[]) => [...xs].sort((a, b) => (a.namespace.join("/") + a.key).localeCompare(b.namespace.join("/") + b.key));
  expect(sortItems(items)).toEqual(sortItems(want.items));
  for (const [q, hits] of Object.entries(want.searches as Record<string, { key: string; score: number; namespace: string[] }[]>)) {
    expect(byScore(await store.search(["users"], { query: q, limit: 4, refreshTtl: false })), q).toEqual(byScore(hits));
  }
  expect(await store.get(A, "doomed", { refreshTtl: false })).toBeNull();
  expect(await store.get(B, "oops", { refreshTtl: false })).toBeNull();
  expect((await store.get(A, "plain", { refreshTtl: false }))?.value).toEqual({ text: "never embedded note about tea" });
}

describe.each([
  ["plain", false],
  ["encrypted", true],
] as const)("migration from format 2 (%s)", (name, encrypted) => {
  it("opens a format-2 directory with its log, and its first compaction writes format 3 with the same items, vectors, TTLs and deletions", async () => {
    const dir = copyFixture(name);
    expect(manifest(dir).formatVersion).toBe(2);
    if (!encrypted) {
      // The deleted items' text is still on disk (the old snapshot, the log) until a compaction.
      expect(allBytes(dir)).toContain("zebracorn-snapshot-secret");
      expect(allBytes(dir)).toContain("zebracorn-log-secret");
    }
    const want = expected[name];
    const now = T0 + 30_000;
    let store = open(dir, encrypted, now);
    await expectSameAsFormat2(store, want);
    expect(manifest(dir).formatVersion).toBe(2); // reading does not rewrite
    await store.compact();
    const m = manifest(dir);
    expect(m.formatVersion).toBe(FORMAT_VERSION);
    expect(m.generation).toBe(2);
    expect(fs.readdirSync(dir).filter((f) => /^(items|vectors|wal)-1\./.test(f))).toEqual([]);
    expect(allBytes(dir)).not.toContain("zebracorn");
    if (!encrypted) {
      const first = fs.readFileSync(path.join(dir, "items-2.jsonl"), "utf8").split("\n")[0]!;
      expect(first.startsWith("[")).toBe(true); // the format-3 item header
      expect(first).toContain("\t{");
    } else {
      expect(allBytes(dir)).not.toContain("alice");
    }
    await store.close();

    // Format 3, read back by a fresh store: the same.
    store = open(dir, encrypted, now);
    await expectSameAsFormat2(store, want);
    expect((await store.stats()).items).toBe(want.items.length);
    await store.close();

    // Two hours later, the 60-minute and 1-minute TTLs have run out; the 20-year one has not.
    store = open(dir, encrypted, T0 + 2 * 3600_000);
    expect(await store.get(A, "job")).toBeNull();
    expect(await store.get(B, "gone-soon")).toBeNull();
    expect((await store.get(B, "trip"))?.value.text).toMatch(/Lisbon/);
    expect((await store.search(["users"], { query: "lisbon trip", limit: 1 }))[0]?.key).toBe("trip");
    await store.close(); // the sweep's deletions are logged: close compacts, writing unread values back as read

    store = open(dir, encrypted, T0 + 2 * 3600_000);
    const left = want.items.filter((i: { key: string }) => i.key !== "job" && i.key !== "gone-soon");
    const values = (await store.search(["users"], { limit: 100 })).map((i) => `${i.namespace.join("/")}/${i.key}=${JSON.stringify(i.value)}`).sort();
    expect(values).toEqual(left.map((i: { namespace: string[]; key: string; value: unknown }) => `${i.namespace.join("/")}/${i.key}=${JSON.stringify(i.value)}`).sort());
    expect(manifest(dir).generation).toBe(3);
    await store.close();
  });
});

describe("format 3 items file", () => {
  it("keeps values unparsed until read, and writes unread ones back byte for byte", async () => {
    const dir = copyFixture("plain");
    let store = open(dir, false, T0 + 30_000);
    await store.compact(); // format 3
    await store.close();
    const valuesOf = (file: string) => fs.readFileSync(path.join(dir, file), "utf8").split("\n").filter((l) => l.includes("\t")).map((l) => l.slice(l.indexOf("\t") + 1));
    const before = valuesOf("items-2.jsonl");
    store = open(dir, false, T0 + 30_000);
    await store.delete(A, "cat"); // nothing read: every other value stays JSON text
    const state = (store as unknown as { state: { items: { items(): Iterable<{ key: string; valueJson?: string }> } } }).state;
    const unread = [...state.items.items()].filter((i) => i.valueJson !== undefined).map((i) => i.key);
    expect(unread.length).toBe(before.length - 1);
    await store.close(); // compacts
    const after = valuesOf("items-3.jsonl");
    expect(after.sort()).toEqual(before.filter((v) => !v.includes("two cats")).sort());
    store = open(dir, false, T0 + 30_000);
    expect((await store.get(A, "unicode"))?.value).toEqual({ text: "alice likes crème brûlée and 寿司", nested: { a: [1, 2, { b: null }] } });
    await store.close();
  });
});

describe("format versions", () => {
  it("a directory of a newer format than this code reads is an IncompatibleStoreError, and is left alone", async () => {
    const dir = copyFixture("plain");
    const { checksum: _, ...rest } = manifest(dir);
    const next = { ...rest, formatVersion: FORMAT_VERSION + 1 };
    fs.writeFileSync(path.join(dir, "store.json"), JSON.stringify({ ...next, checksum: crcHex(JSON.stringify(next)) }));
    const before = allBytes(dir);
    await expect(open(dir, false, T0).open()).rejects.toThrow(IncompatibleStoreError);
    expect(allBytes(dir)).toBe(before);
  });
});
