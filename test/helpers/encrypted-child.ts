/**
 * A child process for the encryption crash test. Usage:
 *   tsx test/helpers/encrypted-child.ts <dir> <hex key> write-forever
 * opens an encrypted store and puts `secret memory N` items, printing "ack N"
 * after each resolves, until killed.
 */
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "./fake-embeddings.js";

const [dir, key] = process.argv.slice(2);
const store = new HNSWStore({
  path: dir,
  index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] },
  encryption: { key },
});
for (let i = 0; ; i++) {
  await store.put(["users", "crash"], `k${i}`, { text: `secret memory ${i}`, i });
  process.stdout.write(`ack ${i}\n`);
}
