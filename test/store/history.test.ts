import { afterEach, describe, expect, it } from "vitest";
import { eraseHistory, history, historyNamespace, InvalidArgumentError, recordVersion, restore } from "../../src/index.js";
import { storeFactories, type StoreCase } from "../graph/stores.js";

const live: StoreCase[] = [];
afterEach(async () => {
  for (const c of live.splice(0)) await c.cleanup();
});

const NS = ["users", "42"];

describe.each(storeFactories())("memory history on $name", (factory) => {
  const make = async () => {
    const c = await factory.make();
    live.push(c);
    return c.store;
  };

  it("records who changed a memory and when, lists versions newest first, and restores any of them (itself undoable)", async () => {
    const store = await make();
    await store.put(NS, "city", { text: "User lives in Berlin." });
    await recordVersion(store, NS, "city", { text: "User lives in Berlin." }, { source: "extractor", at: "2026-01-01T00:00:00Z", details: { thread: "t1" } });
    await store.put(NS, "city", { text: "User lives in Lisbon." });
    await recordVersion(store, NS, "city", { text: "User lives in Lisbon." }, { source: "tool", actor: "user:42", change: "delete", at: "2026-02-01T00:00:00Z" });
    await store.delete(NS, "city");

    const versions = await history(store, NS, "city");
    expect(versions.map((v) => [v.value?.text, v.source, v.change, v.at])).toEqual([
      ["User lives in Lisbon.", "tool", "delete", "2026-02-01T00:00:00.000Z"],
      ["User lives in Berlin.", "extractor", "update", "2026-01-01T00:00:00.000Z"],
    ]);
    expect(versions[0].actor).toBe("user:42");
    expect(versions[1].details).toEqual({ thread: "t1" });
    expect(await history(store, NS, "city", { limit: 1 })).toHaveLength(1);

    // Newest by default: the deleted memory comes back.
    await restore(store, NS, "city");
    expect((await store.get(NS, "city"))?.value.text).toBe("User lives in Lisbon.");
    // Or a chosen one; the value replaced by a restore is itself a version.
    await restore(store, NS, "city", { version: versions[1].id, actor: "admin" });
    expect((await store.get(NS, "city"))?.value.text).toBe("User lives in Berlin.");
    const after = await history(store, NS, "city");
    expect(after[0]).toMatchObject({ change: "restore", source: "restore", actor: "admin", value: { text: "User lives in Lisbon." } });
    expect(after).toHaveLength(4);
  });

  it("keeps versions per key and per exact namespace, outside the memory prefix, never embedded", async () => {
    const store = await make();
    await recordVersion(store, NS, "a", { text: "A" }, { source: "app" });
    await recordVersion(store, NS, "b", { text: "B" }, { source: "app" });
    await recordVersion(store, [...NS, "sub"], "a", { text: "deeper" }, { source: "app" });
    expect((await history(store, NS, "a")).map((v) => v.value?.text)).toEqual(["A"]);
    expect((await history(store, [...NS, "sub"], "a")).map((v) => v.value?.text)).toEqual(["deeper"]);
    expect(await store.search(NS, { query: "A" })).toEqual([]);
    expect(await store.search(historyNamespace(NS), { limit: 10 })).toHaveLength(3); // a prefix search includes the deeper namespace
    // Versions are stored with index: false, so no vector is made for them.
    const stats = (store as { stats?: () => Promise<{ vectors: number }> }).stats;
    if (stats) expect((await stats.call(store)).vectors).toBe(0);
  });

  it("a version of a memory that did not exist restores to 'absent'", async () => {
    const store = await make();
    await recordVersion(store, NS, "new", null, { source: "extractor" });
    await store.put(NS, "new", { text: "added" });
    await restore(store, NS, "new");
    expect(await store.get(NS, "new")).toBeNull();
  });

  it("eraseHistory removes every version under a user's prefix, and only theirs", async () => {
    const store = await make();
    for (let i = 0; i < 5; i++) await recordVersion(store, NS, `k${i}`, { text: `v${i}` }, { source: "app" });
    await recordVersion(store, ["users", "7"], "k", { text: "other user" }, { source: "app" });
    expect(await eraseHistory(store, NS)).toBe(5);
    expect(await store.search(historyNamespace(NS))).toEqual([]);
    expect(await history(store, ["users", "7"], "k")).toHaveLength(1);
  });

  it("rejects bad arguments with named errors and writes nothing", async () => {
    const store = await make();
    await expect(recordVersion(store, NS, "k", { text: "x" }, { source: "" })).rejects.toThrow(InvalidArgumentError);
    await expect(recordVersion(store, [], "k", null, { source: "app" })).rejects.toThrow(InvalidArgumentError);
    await expect(recordVersion(store, NS, "k", null, { source: "app", at: "not a date" })).rejects.toThrow(/version time/);
    await expect(restore(store, NS, "k")).rejects.toThrow(/no recorded versions/);
    expect(await store.search(historyNamespace(NS))).toEqual([]);
  });
});
