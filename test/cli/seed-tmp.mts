import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
const s = new HNSWStore({ path: process.argv[2], index: { dims: 16, embeddings: new FakeEmbeddings() } });
await s.put(["users","42"], "a", { text: "lives in Berlin", source: "extractor" });
await s.put(["users","42"], "b", { text: "likes green tea", source: "tool" }, undefined, { ttl: 60 });
await s.put(["users","7"], "c", { text: "plays the cello" });
await s.put(["memory_cursors","users","42"], "t1", { processed: 3, last: "x" }, false);
await s.close();
