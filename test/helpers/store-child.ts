/**
 * A child process for crash and lock tests. Usage:
 *   tsx test/helpers/store-child.ts <dir> write-forever   puts k0, k1, … printing "ack N" after each resolves
 *   tsx test/helpers/store-child.ts <dir> write-exit N     N puts, then exits without close() (a crash)
 *   tsx test/helpers/store-child.ts <dir> hold             opens the store, prints "open", waits
 */
import { HNSWStore } from "../../src/index.js";
import { FakeEmbeddings } from "./fake-embeddings.js";

const [dir, mode, n] = process.argv.slice(2);
const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });

if (mode === "write-forever") {
  for (let i = 0; ; i++) {
    await store.put(["users", "crash"], `k${i}`, { text: `memory number ${i}`, i });
    process.stdout.write(`ack ${i}\n`);
  }
} else if (mode === "write-exit") {
  for (let i = 0; i < Number(n); i++) await store.put(["users", "crash"], `k${i}`, { text: `memory number ${i}`, i });
  process.exit(0);
} else if (mode === "hold") {
  await store.open();
  process.stdout.write("open\n");
  setInterval(() => {}, 1000);
}
