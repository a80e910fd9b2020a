import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, type BaseStore } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

/** A store under test, with its (fake, deterministic) embedder and cleanup. */
export interface StoreCase {
  store: BaseStore;
  embeddings: FakeEmbeddings;
  cleanup: () => Promise<void>;
}

/** A named way to build a fresh store. */
export interface StoreFactory {
  name: string;
  make: () => Promise<StoreCase>;
}

export const DIMS = 64;

/**
 * When set (by a test file that reruns the node tests over another store,
 * such as test/store-postgres/graph.test.ts), storeFactories() returns these
 * instead. Each test file has its own module state, so this never leaks.
 */
export const storeOverride: { factories?: StoreFactory[] } = {};

/**
 * The stores the node tests run over: InMemoryStore, and HNSWStore on a fresh
 * fs.mkdtemp directory. Both use the
 * FakeEmbeddings TEST DOUBLE (bag of words), since meaning is not under test.
 */
export function storeFactories(): StoreFactory[] {
  if (storeOverride.factories) return storeOverride.factories;
  const factories: StoreFactory[] = [
    {
      name: "InMemoryStore",
      make: async () => {
        const embeddings = new FakeEmbeddings({ dims: DIMS });
        const store = new InMemoryStore({ index: { dims: DIMS, embeddings, fields: ["text"] } });
        return { store, embeddings, cleanup: async () => {} };
      },
    },
  ];
  factories.push({
    name: "HNSWStore",
    make: async () => {
      const dir = await mkdtemp(join(tmpdir(), "hnsw-nodes-"));
      const embeddings = new FakeEmbeddings({ dims: DIMS });
      const store = new HNSWStore({ path: dir, index: { dims: DIMS, embeddings, fields: ["text"] } });
      return {
        store,
        embeddings,
        cleanup: async () => {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  });
  return factories;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
