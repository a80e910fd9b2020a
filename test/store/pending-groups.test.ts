import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { itemId } from "../../src/store/hnsw/item-table.js";
import { listNamespaces } from "../../src/store/hnsw/list-namespaces.js";
import { itemsFooter, readSnapshotItems, SnapshotItemEncoder, type SnapshotItem } from "../../src/store/hnsw/snapshot-items.js";
import { StoreState } from "../../src/store/hnsw/store-state.js";
import { tempDir } from "../helpers/temp-dir.js";
import type { TimeSlicer } from "../../src/time-slice.js";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** Three users' memories (user 2's all expired at t=500), labels in write order. */
function snapshotFile(): { file: string; count: number } {
  const enc = new SnapshotItemEncoder();
  const items: SnapshotItem[] = [];
  let label = 0;
  for (let u = 0; u < 3; u++) {
    for (let i = 0; i < 4; i++) {
      items.push({ ns: ["users", `u${u}`], key: `m${i}`, value: { text: `user ${u} memory ${i}` }, createdAt: 1, updatedAt: 2 + i, ...(u === 2 ? { exp: 500, ttl: 1 } : {}), vec: [[label++, "text"]] });
    }
  }
  const t = tempDir("pending-groups-");
  cleanups.push(t.cleanup);
  const file = path.join(t.dir, "items-1.jsonl");
  fs.writeFileSync(file, [...items.map((i) => enc.line(i)), itemsFooter(items.length)].join("\n") + "\n");
  return { file, count: items.length };
}

/** A state loaded from the snapshot, counting which namespaces' items were decoded. */
async function loadedState(): Promise<{ state: StoreState; decoded: string[] }> {
  const { file, count } = snapshotFile();
  const loaded = await readSnapshotItems(file, count);
  const decoded: string[] = [];
  for (const g of loaded.groups) {
    const decode = g.decode;
    g.decode = () => {
      decoded.push(g.namespace.join("/"));
      return decode();
    };
  }
  const state = new StoreState(["text"], undefined);
  state.loadSnapshot(loaded);
  return { state, decoded };
}

describe("a snapshot's namespaces are decoded when first used", () => {
  it("counts, listings and an expiry sweep's skip need no decoding; a get decodes its namespace only", async () => {
    const { state, decoded } = await loadedState();
    expect(state.items.size).toBe(12);
    expect(state.items.countUnder(["users"])).toBe(8 + 4);
    expect(state.items.countUnder(["users", "u1"])).toBe(4);
    // At t=1000 user 2's memories have all expired: listed from the expiries recorded at open.
    expect(listNamespaces(state.items, { matchConditions: [] } as never, 1000)).toEqual([
      ["users", "u0"],
      ["users", "u1"],
    ]);
    const groups = state.items.groupsUnder([]);
    expect(groups.map((g) => g.mayHaveExpired(1000))).toEqual([false, false, true]);
    expect(groups.map((g) => g.mayHaveExpired(100))).toEqual([false, false, false]);
    expect(decoded).toEqual([]);

    expect(state.items.get(["users", "u1"], "m2")?.value).toEqual({ text: "user 1 memory 2" });
    expect(decoded).toEqual(["users/u1"]);
    expect(state.items.get(["users", "u1"], "m3")?.updatedAt).toBe(5);
    expect(decoded).toEqual(["users/u1"]); // once
  });

  it("the owner of a label decodes the namespace that holds it, and an item's id finds it in its group", async () => {
    const { state, decoded } = await loadedState();
    const owner = state.owner(9); // user 2's second memory
    expect([owner?.namespace, owner?.key, owner?.expiresAt]).toEqual([["users", "u2"], "m1", 500]);
    expect(decoded).toEqual(["users/u2"]);
    expect(state.owner(42)).toBeUndefined(); // no such label
    const g0 = state.items.group(["users", "u0"])!;
    expect(state.items.inGroup(g0, itemId(["users", "u0"], "m3"))?.key).toBe("m3");
    expect(decoded).toEqual(["users/u2", "users/u0"]);
    // The store-wide id map decodes everything, once.
    expect(state.items.byId(itemId(["users", "u1"], "m0"))?.key).toBe("m0");
    expect([...decoded].sort()).toEqual(["users/u0", "users/u1", "users/u2"]);
  });

  it("a put or delete in a pending namespace decodes it first, so nothing is lost or doubled", async () => {
    const { state, decoded } = await loadedState();
    state.applyPut({ namespace: ["users", "u0"], key: "m9", value: { text: "new" }, vectors: [] }, 10);
    expect(decoded).toEqual(["users/u0"]);
    expect(state.items.group(["users", "u0"])!.items.size).toBe(5);
    expect(state.applyDelete(["users", "u1"], "m0")).toBe(true);
    expect(state.items.countUnder(["users", "u1"])).toBe(3);
    expect(state.items.size).toBe(12);
    expect([...state.items.items()].length).toBe(12);
  });

  it("decodeAll decodes every pending namespace, yielding between them when the slice is spent", async () => {
    const { state, decoded } = await loadedState();
    void state.items.get(["users", "u1"], "m0");
    let pauses = 0;
    await state.items.decodeAll({ due: true, pause: async () => void pauses++ } as unknown as TimeSlicer);
    expect([...decoded].sort()).toEqual(["users/u0", "users/u1", "users/u2"]);
    expect(pauses).toBe(2); // after each of the two namespaces still pending
  });
});
