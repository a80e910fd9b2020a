import type { BaseStore, Operation, OperationResults } from "@langchain/langgraph-checkpoint";
import { expect } from "vitest";
import { ProcedureChangeRejectedError, ProcedureConflictError, StoreConflictError } from "../../src/errors.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { procedureHistory } from "../../src/procedures/history.js";
import { MemoryStoreBase } from "../../src/store/memory-store-base.js";
import { supportsConditionalPuts } from "../../src/store/conditional-put.js";

/**
 * A client of a shared store that runs `before` once, just before its first
 * batch with a write: the moment another process can slip a write in between
 * this client's read and its write. It forwards everything else unchanged.
 */
export class InterleavingStore extends MemoryStoreBase {
  private before?: () => Promise<void>;
  constructor(private readonly inner: BaseStore, before: () => Promise<void>) {
    super();
    this.before = before;
  }
  get conditionalPuts(): boolean {
    return supportsConditionalPuts(this.inner);
  }
  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (this.before && operations.some((op) => "value" in op)) {
      const run = this.before;
      this.before = undefined;
      await run();
    }
    return this.inner.batch(operations);
  }
}

/**
 * Two clients of one shared store (two processes, each with its own
 * in-process lock) change the same instructions from version 1: the one
 * that writes second must get ProcedureConflictError and write nothing, and
 * both changes must never be silently merged into one lost update.
 */
export async function expectCompareAndSet(clientA: BaseStore, clientB: BaseStore): Promise<void> {
  const scope = { agentId: "bot", userId: "ann" };
  expect(supportsConditionalPuts(clientA)).toBe(true);
  await setProcedure(clientA, scope, { instructions: "Be brief.", reason: "start" });
  const a = new InterleavingStore(clientA, async () => {
    await setProcedure(clientB, scope, { instructions: "Be brief.\nUse bullet points.", reason: "B learned" });
  });
  const err = await setProcedure(a, scope, { instructions: "Be brief.\nAnswer in French.", reason: "A learned", expectedVersion: 1 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProcedureConflictError);
  expect(err).toBeInstanceOf(ProcedureChangeRejectedError);
  expect((err as ProcedureConflictError).reason).toBe("conflict");
  const current = await getProcedure(clientB, scope);
  expect(current).toMatchObject({ version: 2, instructions: "Be brief.\nUse bullet points." });
  expect((await procedureHistory(clientB, scope)).map((r) => r.version)).toEqual([2, 1]);

  // At the store level: a conditional put that no longer holds fails the whole batch, applying nothing of it.
  const err2 = await clientA
    .batch([
      { namespace: ["scratch"], key: "x", value: { v: 1 } },
      { namespace: ["procedures", "bot", "ann"], key: "instructions", value: { instructions: "lost", version: 2 }, ifValue: { field: "version", equals: 1 } } as Operation,
    ])
    .catch((e: unknown) => e);
  expect(err2).toBeInstanceOf(StoreConflictError);
  expect(await clientA.get(["scratch"], "x")).toBeNull();
  expect((await getProcedure(clientA, scope))?.version).toBe(2);
}
