import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { InMemoryStore, type BaseStore } from "@langchain/langgraph-checkpoint";
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

const hnswModule = fileURLToPath(new URL("../../src/store/hnsw-store.ts", import.meta.url));

/**
 * The stores the node tests run over: InMemoryStore always, and HNSWStore on a
 * fresh fs.mkdtemp directory when src/store/hnsw-store.ts exists. Both use the
 * FakeEmbeddings TEST DOUBLE (bag of words), since meaning is not under test.
 */
export function storeFactories(): StoreFactory[] {
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
  if (existsSync(hnswModule)) {
    factories.push({
      name: "HNSWStore",
      make: async () => {
        const dir = await mkdtemp(join(tmpdir(), "hnsw-nodes-"));
        const modPath: string = hnswModule;
        const mod = (await import(modPath)) as { HNSWStore: new (o: unknown) => BaseStore & { close(): Promise<void> } };
        const embeddings = new FakeEmbeddings({ dims: DIMS });
        const store = new mod.HNSWStore({ path: dir, index: { dims: DIMS, embeddings, fields: ["text"] } });
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
  }
  return factories;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
