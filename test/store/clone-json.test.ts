import { describe, expect, it } from "vitest";
import { cloneJson } from "../../src/store/clone-json.js";

describe("cloneJson (search results' value copies)", () => {
  const values: Record<string, unknown>[] = [
    { text: "a", n: 1.5, ok: true, none: null, list: [1, "two", [3], { four: 4 }], nested: { deep: { deeper: ["x"] } } },
    {},
    { empty: [], obj: {} },
    JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c"}') as Record<string, unknown>,
  ];
  it("gives what structuredClone gives for plain JSON, own '__proto__' keys included", () => {
    for (const v of values) {
      const c = cloneJson(v);
      expect(c).toStrictEqual(structuredClone(v));
      expect(JSON.stringify(c)).toBe(JSON.stringify(v));
      expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it("shares nothing with the original", () => {
    const v = values[0]!;
    const c = cloneJson(v) as { list: unknown[]; nested: { deep: { deeper: string[] } } };
    c.list.push("more");
    c.nested.deep.deeper[0] = "changed";
    expect((v.list as unknown[]).length).toBe(4);
    expect((v.nested as { deep: { deeper: string[] } }).deep.deeper[0]).toBe("x");
  });
});
