/**
 * No file handle outlives close(), even when close() runs while other work
 * is still opening or reopening a file. A handle that does would be closed by
 * the garbage collector (Node's DEP0137 warning) and hold the file until then.
 * Open descriptors are read from /proc/self/fd (Linux).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CachedEmbeddings } from "../../src/embeddings/cached-embeddings.js";
import { AuditLog } from "../../src/privacy/audit-log.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "close-race-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** This process's open descriptors on files under `dir`. */
function fdsUnder(where: string): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(where)) out.push(target);
    } catch {
      // closed while listing
    }
  }
  return out;
}

describe.skipIf(process.platform !== "linux")("close() releases every file handle", () => {
  it("CachedEmbeddings: close() during retainDocuments leaves no handle on the cache file", async () => {
    const file = path.join(dir, "cache.jsonl");
    const cache = new CachedEmbeddings({ embeddings: new FakeEmbeddings({ dims: 8 }), file });
    await cache.embedDocuments(["keep me", "drop me"]);
    expect(fdsUnder(dir)).toHaveLength(1);
    const retained = cache.retainDocuments(["keep me"]);
    await cache.close();
    await retained;
    expect(fdsUnder(dir)).toEqual([]);
  });

  it("AuditLog: close() while verify() is opening the log leaves no handle on it", async () => {
    const audit = path.join(dir, "audit");
    const first = new AuditLog({ path: audit, sync: false });
    await first.append({ op: "put", namespace: ["users", "1"], key: "k", source: "test" });
    await first.close();
    expect(fdsUnder(dir)).toEqual([]);

    const log = new AuditLog({ path: audit, sync: false });
    const verified = log.verify();
    await log.close();
    expect((await verified).ok).toBe(true);
    expect(fdsUnder(dir)).toEqual([]);
  });
});
