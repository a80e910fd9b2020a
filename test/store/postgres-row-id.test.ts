import { describe, expect, it } from "vitest";
import { idPair, rowId } from "../../src/store/postgres/sql.js";
import { validateKey } from "../../src/store/text-rules.js";
import { validateNamespace } from "../../src/store/namespace.js";

describe("rowId / idPair (a search's item ids)", () => {
  const pairs: [string, string][] = [
    ["users.u1", "k"],
    ["users.u1", ""],
    ["", "k"],
    ["a.b", "c"],
    ["a", "b.c"],
    ['us"ers', 'k"ey'],
    ["users\\x", "\\u0000"],
    ["naïve.用户", "ключ 🙂"],
    ["users.u1", "[\"users\",\"u1\"]"],
    ["users.u1", "a\u0001b\nc"],
  ];

  it("splits every id back into the namespace path and key it was made of", () => {
    for (const [ns, key] of pairs) expect(idPair(rowId(ns, key))).toEqual([ns, key]);
  });

  it("gives different items different ids", () => {
    const ids = new Set(pairs.map(([ns, key]) => rowId(ns, key)));
    expect(ids.size).toBe(pairs.length);
  });

  it("relies on a separator that no key or namespace label can hold", () => {
    expect(() => validateKey("a\0b", "put")).toThrow(/NUL/);
    expect(() => validateNamespace(["users", "u\0"])).toThrow(/NUL/);
  });
});
