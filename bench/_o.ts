import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { lowRankUnitVectors, PrecomputedEmbeddings } from "./lib/vectors.js";
const DIMS = 512;
const embeddings = new PrecomputedEmbeddings(new Float32Array(DIMS), lowRankUnitVectors(1, DIMS, 2, { basisSeed: 1 }), DIMS);
const store = new HNSWStore({ path: "/tmp/fmtbench/v3", index: { dims: DIMS, embeddings, fields: ["text"] }, retrieval: "vector", embeddingCache: false, durability: "process" });
const t0 = performance.now();
await store.open();
console.error("open", (performance.now() - t0).toFixed(0));
process.exit(0);
