import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../../src/index.js";
import { tempDir } from "../helpers/temp-dir.js";
import { contractIndex, describeStoreContract, type ContractFactory, type ContractOptions } from "./store-contract.js";

const DIMS = 32;

function hnswFactory(persistent: boolean): ContractFactory {
  return {
    name: `HNSWStore (${persistent ? "on disk" : "in memory"})`,
    capabilities: { extendedFilters: true, extras: true, batchedEmbedding: true, namespaceDetail: true, searchRetrieval: true },
    make: async (options: ContractOptions = {}) => {
      const { embeddings, index } = contractIndex(options, DIMS);
      const dir = persistent ? tempDir() : undefined;
      const store = new HNSWStore({ path: dir?.dir, index });
      return {
        store,
        embeddings,
        cleanup: async () => {
          await store.close();
          dir?.cleanup();
        },
      };
    },
  };
}

const inMemory: ContractFactory = {
  name: "InMemoryStore (LangGraph's, the reference)",
  capabilities: { extendedFilters: false, extras: false, batchedEmbedding: false, namespaceDetail: false },
  // Where LangGraph's InMemoryStore (1.x) itself departs from the contract the package's stores keep.
  divergences: {
    "puts, gets, updates and deletes, with Date timestamps": "a re-put within the same millisecond keeps updatedAt",
    "returns copies: mutating a returned or stored value changes nothing": "stores and returns the caller's objects",
    "keeps namespaces that would collide if joined apart (':' and '/' allowed)": "namespaces that differ only in where a label splits are confused",
    "filters with every operator, on dotted paths": "operator filters or dotted paths match nothing",
    "pages with limit (default 10) and offset, newest first without a query": "insertion order, oldest first",
    "replaces all old vectors on re-put and removes them on delete": "keeps vectors of fields a re-put no longer has",
    "applies a batch's operations in order, embedding its texts in one call": "results of a mixed batch differ (it does not apply operations in order)",
    "lists namespaces with prefix, suffix, wildcards, maxDepth, limit and offset": "keeps a namespace listed after its last item is deleted",
  },
  make: async (options: ContractOptions = {}) => {
    const { embeddings, index } = contractIndex(options, DIMS);
    const store = new InMemoryStore(index ? { index } : undefined);
    return { store, embeddings, cleanup: async () => {} };
  },
};

describeStoreContract(hnswFactory(true));
describeStoreContract(hnswFactory(false));
describeStoreContract(inMemory);
