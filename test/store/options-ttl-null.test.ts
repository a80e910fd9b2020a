import { describe, expect, it } from "vitest";
import { HNSWStore, InvalidOptionError } from "../../src/index.js";

/** `ttl: { defaultTtl: null }` means "never expires" (it used to expire every put at creation). */
describe("ttl.defaultTtl null", () => {
  it("keeps every put, and a per-put ttl still applies", async () => {
    let now = 1_000_000;
    const store = new HNSWStore({ ttl: { defaultTtl: null }, clock: () => now });
    await store.put(["u"], "a", { text: "kept" });
    await store.put(["u"], "b", { text: "short" }, undefined, { ttl: 1 });
    now += 10 * 60_000;
    expect((await store.get(["u"], "a"))?.value).toEqual({ text: "kept" });
    expect(await store.get(["u"], "b")).toBeNull();
    expect((await store.search(["u"])).map((i) => i.key)).toEqual(["a"]);
    await store.close();
  });

  it.each([NaN, -1, 0, Infinity, "5", {}])("refuses defaultTtl %s with a named error", (v) => {
    expect(() => new HNSWStore({ ttl: { defaultTtl: v as never } })).toThrow(InvalidOptionError);
  });

  it("refuses a sweep interval a Node timer cannot hold", () => {
    expect(() => new HNSWStore({ ttl: { sweepIntervalMinutes: 40_000 } })).toThrow(/ttl.sweepIntervalMinutes/);
  });
});
