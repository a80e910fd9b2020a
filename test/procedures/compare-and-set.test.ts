/**
 * Compare-and-set of learned instructions on one HNSWStore directory shared
 * by two clients (each with its own in-process lock), and conditional puts'
 * validation. Real HNSWStore on a temp dir, no embedder.
 */
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError, StoreConflictError } from "../../src/errors.js";
import { setProcedure } from "../../src/procedures/store.js";
import { supportsConditionalPuts } from "../../src/store/conditional-put.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { expectCompareAndSet, InterleavingStore } from "../helpers/procedure-race.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe("compare-and-set of the instructions' version", () => {
  it("HNSWStore: a writer that read a version another client already replaced gets ProcedureConflictError", async () => {
    const { dir, cleanup } = tempDir("procedures-cas-");
    const store = new HNSWStore({ path: dir });
    cleanups.push(async () => (await store.close(), cleanup()));
    // Two wrappers = two in-process locks, as two processes of a shared store have.
    await expectCompareAndSet(new InterleavingStore(store, async () => {}), new InterleavingStore(store, async () => {}));
  });

  it("conditional puts are checked: a bad condition is refused, an absent item matches null", async () => {
    const store = new HNSWStore({});
    cleanups.push(() => store.close());
    await expect(store.batch([{ namespace: ["a"], key: "k", value: { v: 1 }, ifValue: { field: "", equals: 1 } } as never])).rejects.toThrow(InvalidArgumentError);
    await store.batch([{ namespace: ["a"], key: "k", value: { version: 1 }, ifValue: { field: "version", equals: null } } as never]);
    await expect(store.batch([{ namespace: ["a"], key: "k", value: { version: 2 }, ifValue: { field: "version", equals: null } } as never])).rejects.toThrow(StoreConflictError);
    await store.batch([{ namespace: ["a"], key: "k", value: { version: 2 }, ifValue: { field: "version", equals: 1 } } as never]);
    expect((await store.get(["a"], "k"))?.value).toEqual({ version: 2 });
  });

  it("a store without conditional puts (InMemoryStore) is never sent one: the in-process check still refuses a stale version", async () => {
    const store = new InMemoryStore();
    expect(supportsConditionalPuts(store)).toBe(false);
    await setProcedure(store, { agentId: "bot" }, { instructions: "A.", reason: "r" });
    await setProcedure(store, { agentId: "bot" }, { instructions: "B.", reason: "r" });
    await expect(setProcedure(store, { agentId: "bot" }, { instructions: "C.", reason: "r", expectedVersion: 1 })).rejects.toMatchObject({ name: "ProcedureConflictError", reason: "conflict" });
  });
});
