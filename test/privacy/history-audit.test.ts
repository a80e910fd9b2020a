import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { createMemoryTools } from "../../src/graph/tools.js";
import {
  AuditLog,
  ProtectedStore,
  cleanup,
  erasePerson,
  listHistory,
  restoreVersion,
  runAsActor,
  scheduleRetention,
  InvalidArgumentError,
} from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { allBytes } from "../helpers/all-bytes.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function make(opts: { audit?: boolean; inMemory?: boolean } = {}) {
  const t = tempDir();
  const embeddings = new FakeEmbeddings({ dims: 32 });
  const index = { dims: 32, embeddings, fields: ["text"] };
  const inner = opts.inMemory ? new InMemoryStore({ index }) : new HNSWStore({ path: join(t.dir, "store"), index });
  const audit = opts.audit ? new AuditLog({ path: join(t.dir, "audit"), sync: false }) : undefined;
  const store = new ProtectedStore(inner, { history: true, audit });
  cleanups.push(t.cleanup, () => store.close());
  return { dir: t.dir, store, audit };
}

describe.each([false, true])("history of memory changes (inMemory=%s)", (inMemory) => {
  it("keeps every updated or deleted version with who changed it, lists newest first and restores", async () => {
    const { store } = make({ inMemory });
    const ns = ["users", "42"];
    await store.put(ns, "city", { text: "lives in Berlin", source: "extractor" });
    await runAsActor({ source: "api", identity: "admin-1" }, () => store.put(ns, "city", { text: "lives in Lisbon", source: "extractor" }));
    const tools = createMemoryTools({ namespace: ["users", "{user_id}"], store });
    await tools.find((t) => t.name === "forget")!.invoke({ key: "city" }, { configurable: { user_id: "42" } });
    expect(await store.get(ns, "city")).toBeNull();

    const versions = await listHistory(store, ns, "city");
    expect(versions.map((v) => [v.op, v.value.text])).toEqual([
      ["delete", "lives in Lisbon"],
      ["update", "lives in Berlin"],
    ]);
    expect(versions[0].source).toBe("tool");
    expect(versions[1].source).toBe("api");
    expect(versions[1].identity).toBe("admin-1");
    // Kept versions are outside the user's prefix: recall never returns them.
    expect((await store.search(ns)).length).toBe(0);

    await restoreVersion(store, ns, "city", versions[1].version);
    expect((await store.get(ns, "city"))?.value.text).toBe("lives in Berlin");
    await expect(restoreVersion(store, ns, "city", 12345)).rejects.toThrow(InvalidArgumentError);
  });
});

describe("audit trail", () => {
  it("records puts, updates and deletes as hashes only, verifies its chain and detects tampering", async () => {
    const { dir, store, audit } = make({ audit: true });
    await runAsActor({ source: "cli", identity: "ops@example.com" }, async () => {
      await store.put(["users", "42"], "allergy", { text: "allergic to penicillin" });
      await store.put(["users", "42"], "allergy", { text: "allergic to penicillin and latex" });
      await store.delete(["users", "42"], "allergy");
    });
    await store.put(["users", "7"], "diet", { text: "vegetarian", source: "tool" });
    const entries = await audit!.entries();
    expect(entries.map((e) => [e.op, e.source, e.root])).toEqual([
      ["put", "cli", "users"],
      ["update", "cli", "users"],
      ["delete", "cli", "users"],
      ["put", "tool", "users"],
    ]);
    expect(entries[0].identity).toMatch(/^[0-9a-f]{32}$/);
    expect(await audit!.verify()).toEqual({ ok: true, entries: 4 });
    const log = readFileSync(join(dir, "audit", "audit.log"), "utf8");
    for (const clear of ["penicillin", "allergy", "42", "ops@example.com", "vegetarian", "diet"]) {
      expect(log.includes(`"${clear}"`) || log.includes(clear + " ")).toBe(false);
    }
    expect(log).not.toContain("penicillin");
    expect(log).not.toContain("ops@example.com");

    // Edit one field of one line: the chain breaks there.
    const lines = log.trimEnd().split("\n");
    lines[1] = lines[1].replace('"op":"update"', '"op":"put"');
    writeFileSync(join(dir, "audit", "audit.log"), lines.join("\n") + "\n");
    const fresh = new AuditLog({ path: join(dir, "audit") });
    const report = await fresh.verify();
    expect(report.ok).toBe(false);
    expect(report.brokenAt).toBe(2);
    // Drop a line: the chain breaks too.
    writeFileSync(join(dir, "audit", "audit.log"), [log.split("\n")[0], log.split("\n")[2]].join("\n") + "\n");
    const again = new AuditLog({ path: join(dir, "audit") });
    expect((await again.verify()).ok).toBe(false);
    await again.close();
    await fresh.close();
  });
});

describe("retention and erasure", () => {
  it("cleanup drops memories older than maxAge and keeps the keepLast newest per namespace", async () => {
    const { store } = make();
    for (const user of ["1", "2"]) {
      for (let i = 0; i < 4; i++) {
        await store.put(["users", user], `m${i}`, { text: `memory ${i}` });
        await new Promise((r) => setTimeout(r, 3));
      }
    }
    const kept = await cleanup(store, { namespace: ["users"], keepLast: 2 });
    expect(kept.total).toBe(4);
    expect((await store.search(["users", "1"])).map((i) => i.key)).toEqual(["m3", "m2"]);
    const aged = await cleanup(store, { namespace: ["users", "2"], maxAge: 60, now: () => Date.now() + 61 * 60_000 });
    expect(aged.total).toBe(2);
    expect(await store.search(["users", "2"])).toEqual([]);
    expect((await store.search(["users", "1"])).length).toBe(2);
    await expect(cleanup(store, { namespace: ["users"] })).rejects.toThrow(InvalidArgumentError);
  });

  it("scheduleRetention applies per-namespace rules at once and on its timer, and stops", async () => {
    const { store } = make();
    for (let i = 0; i < 3; i++) {
      await store.put(["episodes", "1"], `e${i}`, { text: `turn ${i}` });
      await store.put(["users", "1"], `f${i}`, { text: `fact ${i}` });
      await new Promise((r) => setTimeout(r, 3));
    }
    const runs: number[] = [];
    const stop = scheduleRetention(store, [{ namespace: ["episodes"], keepLast: 1 }, { namespace: ["users"], keepLast: 2 }], {
      everyMinutes: 1,
      onRun: (reports) => runs.push(reports.reduce((s, r) => s + r.total, 0)),
    });
    for (let i = 0; i < 100 && runs.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    stop();
    expect(runs[0]).toBe(3);
    expect((await store.search(["episodes", "1"])).map((i) => i.key)).toEqual(["e2"]);
    expect((await store.search(["users", "1"])).map((i) => i.key)).toEqual(["f2", "f1"]);
    expect(() => scheduleRetention(store, [], {})).toThrow(InvalidArgumentError);
  });

  it("erasePerson removes facts, episodes, history and cursors, unlinks audit entries, and the text leaves the disk", async () => {
    const { dir, store, audit } = make({ audit: true });
    await store.put(["users", "42"], "a", { text: "allergic to penicillin" });
    await store.put(["users", "42"], "a", { text: "allergic to penicillin and latex" });
    await store.put(["episodes", "42"], "t1", { text: "user: my penicillin rash was bad" });
    await store.inner.put(["memory_cursors", "users", "42"], "thread-1", { processed: 3, last: "x" }, false);
    await store.put(["users", "7"], "b", { text: "vegetarian" });
    expect(await audit!.hashesFor(["users", "42"], "a")).toBeDefined();

    const report = await erasePerson(store, { namespaces: [["users", "42"], ["episodes", "42"]] });
    expect(report.namespaces.map((n) => [n.items, n.history, n.cursors])).toEqual([
      [1, 1, 1],
      [1, 0, 0],
    ]);
    expect(report.auditUnlinked).toBe(true);
    expect(await store.inner.count!()).toBe(1);
    expect(await audit!.hashesFor(["users", "42"], "a")).toBeUndefined();
    expect((await audit!.verify()).ok).toBe(true);
    expect((await audit!.entries()).at(-1)?.op).toBe("erase");
    await store.close();
    const bytes = allBytes(join(dir, "store"));
    expect(bytes).not.toContain("penicillin");
    expect(bytes).toContain("vegetarian");
  });
});
