import { describe, expect, it } from "vitest";
import type { MemoryPutOperation } from "../../src/store/operations.js";
import { byItem, needsOrderedLocks } from "../../src/store/postgres/write-order.js";

/**
 * Which PostgreSQL write batches lock their items in order first (see
 * src/store/postgres/write-order.ts): all but one run of plain puts, which
 * the upsert itself writes in that order.
 */
describe("PostgresMemoryStore write order", () => {
  const put = (key: string, ns = ["shared"]) => ({ namespace: ns, key, value: { v: key } });
  const get = (key: string) => ({ namespace: ["shared"], key });
  const search = { namespacePrefix: ["shared"], limit: 10, offset: 0 };

  it("one run of puts needs no locks first, whatever reads come before or after it", () => {
    expect(needsOrderedLocks([put("b"), put("a")])).toBe(false);
    expect(needsOrderedLocks([get("a"), search, put("b"), put("a"), get("b")])).toBe(false);
    expect(needsOrderedLocks([get("a"), search])).toBe(false);
    expect(needsOrderedLocks([])).toBe(false);
  });

  it("puts split by a read or by a repeated key, deletes and conditional puts lock first", () => {
    expect(needsOrderedLocks([put("b"), get("x"), put("a")])).toBe(true);
    expect(needsOrderedLocks([put("b"), search, put("a")])).toBe(true);
    expect(needsOrderedLocks([put("a"), put("a")])).toBe(true);
    expect(needsOrderedLocks([{ namespace: ["shared"], key: "a", value: null }])).toBe(true);
    const conditional: MemoryPutOperation = { ...put("a"), ifValue: { field: "v", equals: "a" } };
    expect(needsOrderedLocks([conditional])).toBe(true);
  });

  it("orders by namespace path, then key", () => {
    const items = [put("b", ["u", "2"]), put("a", ["u", "2"]), put("z", ["u", "10"]), put("c", ["u"])];
    expect(items.sort(byItem).map((i) => `${i.namespace.join("/")}:${i.key}`)).toEqual(["u:c", "u/10:z", "u/2:a", "u/2:b"]);
  });
});
