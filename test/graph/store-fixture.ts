import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, beforeEach } from "vitest";
import type { StoreCase, StoreFactory } from "./stores.js";

/** A fresh store from `factory`, a temp dir and a real SQLite checkpointer in it. */
export interface StoreAndThreads {
  c: StoreCase;
  dir: string;
  checkpointer: SqliteSaver;
}

/**
 * Registers beforeEach/afterEach for the calling describe: a fresh store case,
 * a temp dir (`prefix`…) and a SQLite checkpointer before each test, handed
 * to `set`; the store cleaned up and the dir removed after.
 */
export function withStoreAndThreads(factory: StoreFactory, prefix: string, set: (fx: StoreAndThreads) => void): void {
  let fx: StoreAndThreads | undefined;
  beforeEach(async () => {
    const c = await factory.make();
    const dir = await mkdtemp(join(tmpdir(), prefix));
    fx = { c, dir, checkpointer: SqliteSaver.fromConnString(join(dir, "threads.sqlite")) };
    set(fx);
  });
  afterEach(async () => {
    if (!fx) return;
    await fx.c.cleanup();
    await rm(fx.dir, { recursive: true, force: true });
    fx = undefined;
  });
}
