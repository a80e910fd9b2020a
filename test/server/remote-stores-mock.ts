import { makeRemote } from "./remote-factory.js";
import type * as Stores from "../graph/stores.js";

/**
 * A `vi.mock` factory for test/graph/stores.ts: the same module, whose
 * storeFactories() yields one store, RemoteStore → memory server → HNSWStore
 * on disk over real HTTP, so a whole graph suite re-runs over RemoteStore.
 */
export async function remoteStores(importOriginal: () => Promise<typeof Stores>): Promise<typeof Stores> {
  const original = await importOriginal();
  return {
    ...original,
    storeFactories: () => [
      {
        name: "RemoteStore → memory server → HNSWStore",
        make: async () => {
          const r = await makeRemote({ dims: original.DIMS, as: "service" });
          return { store: r.store, embeddings: r.embeddings, cleanup: r.cleanup };
        },
      },
    ],
  };
}
