/**
 * A child process for the tmpfs test. Usage:
 *   tsx test/security/encryption-child.ts <dir> <hex key> <ramDir> <items>
 * opens an encrypted store whose RAM directory is <ramDir>, fills it with
 * <items> 384-d vectors (FakeEmbeddings, a TEST DOUBLE), prints "filled",
 * then compacts forever (each compaction writes the clear index to the RAM
 * directory for a moment), printing "compacted N", until killed.
 */
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const [dir, key, ramDir, items] = process.argv.slice(2);
const store = new HNSWStore({
  path: dir,
  index: { dims: 384, embeddings: new FakeEmbeddings({ dims: 384 }), fields: ["text"] },
  encryption: { key: key!, ramDir },
  embeddingCache: false,
});
const n = Number(items);
for (let i = 0; i < n; i += 500) {
  await store.batch(Array.from({ length: Math.min(500, n - i) }, (_, j) => ({ namespace: ["users", "u"], key: `k${i + j}`, value: { text: `private note ${i + j} word${(i + j) % 97} term${(i + j) % 89}` } })));
}
process.stdout.write("filled\n");
for (let c = 0; ; c++) {
  await store.compact();
  process.stdout.write(`compacted ${c}\n`);
}
