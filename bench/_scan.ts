import { readSnapshotItems } from "../src/store/hnsw/snapshot-items.js";
import { readManifest, itemsFile } from "../src/store/hnsw/snapshot.js";
const dir = "/tmp/fmtbench/v3";
const m = readManifest(dir)!;
for (let r = 0; r < 6; r++) {
  const t = performance.now();
  await readSnapshotItems(itemsFile(dir, m.generation), m.itemCount, r % 2 ? undefined : m.files!.items);
  console.log(r % 2 ? "no crc" : "crc", (performance.now() - t).toFixed(0));
}
