import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore, InvalidArgumentError, InvalidFilterError, InvalidValueError } from "../../src/index.js";
import { matchesFilter, validateFilter } from "../../src/store/filter.js";
import { MAX_VALUE_DEPTH } from "../../src/store/validate-value.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function open(dir: string) {
  // FakeEmbeddings: TEST DOUBLE (bag of words); meaning is not under test.
  const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] }, embeddingCache: false });
  cleanups.push(() => store.close());
  return store;
}

function setup() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return { store: open(t.dir), dir: t.dir };
}

const nested = (depth: number): Record<string, unknown> => {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe("filters match own properties only", () => {
  it("inherited names (__proto__, constructor, toString) match no item", async () => {
    const { store } = setup();
    await store.put(["f"], "a", { text: "one", n: 1 });
    await store.put(["f"], "b", { text: "two", n: 2 });
    const keys = async (filter: Record<string, unknown>) => (await store.search(["f"], { filter })).map((r) => r.key).sort();
    expect(await keys(JSON.parse('{"__proto__":{"$exists":true}}'))).toEqual([]);
    expect(await keys({ constructor: { $exists: true } })).toEqual([]);
    expect(await keys({ toString: { $ne: null } })).toEqual([]);
    expect(await keys({ "text.length": { $exists: true } })).toEqual([]);
    expect(await keys({ "n.toFixed": { $exists: true } })).toEqual([]);
    // An item that really has such a field still matches.
    await store.put(["f"], "c", { text: "three", constructor: "own", toString: "own" });
    expect(await keys({ constructor: { $exists: true } })).toEqual(["c"]);
    expect(await keys({ toString: { $ne: null } })).toEqual(["c"]);
    expect(await keys({ constructor: "own" })).toEqual(["c"]);
  });

  it("a missing field equals null (MongoDB's rule)", () => {
    expect(matchesFilter({ a: 1 }, { b: null })).toBe(true);
    expect(matchesFilter({ a: 1 }, { b: { $ne: null } })).toBe(false);
    expect(matchesFilter({ b: 0 }, { b: { $ne: null } })).toBe(true);
    expect(matchesFilter({ a: 1 }, { b: { $in: [null, 2] } })).toBe(true);
    expect(matchesFilter({ a: 1 }, { b: { $exists: false } })).toBe(true);
  });
});

describe("bad filters are named errors raised before anything in the batch is applied", () => {
  const cyclic: Record<string, unknown> = { y: 1 };
  cyclic.self = cyclic;
  it.each([
    ["a BigInt operand", { obj: { $eq: { y: 1n } } }, /bigint/],
    ["a cyclic operand", { obj: { $eq: cyclic } }, /circular/],
    ["a Date operand", { when: { $gt: new Date() } }, /instance of Date/],
    ["a function literal", { f: () => 1 }, /function/],
    ["operators mixed with plain keys", { meta: { $eq: 1, lang: "en" } }, /mixes operators \(\$eq\) with plain keys \(lang\)/],
    ["an unknown operator", { n: { $ge: 1 } }, /unknown operator '\$ge'/],
    ["a top-level operator", { $or: [{ a: 1 }] }, /not a field path/],
    ["$exists with a non-boolean", { n: { $exists: 1 } }, /\$exists needs true or false/],
    ["$gt with an object", { n: { $gt: { v: 1 } } }, /\$gt needs a number or a string/],
    ["$in without an array", { n: { $in: 3 } }, /\$in needs an array/],
    ["an operand nested too deep", { n: { $eq: nested(MAX_VALUE_DEPTH + 5) } }, /nested more than/],
  ])("%s", async (_name, filter, message) => {
    const { store, dir } = setup();
    const err = await store
      .batch([
        { namespace: ["u"], key: "k", value: { text: "written?" } },
        { namespacePrefix: ["u"], filter: filter as Record<string, unknown>, limit: 10, offset: 0 },
      ])
      .catch((e) => e);
    expect(err).toBeInstanceOf(InvalidFilterError);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.message).toMatch(message);
    expect(await store.get(["u"], "k")).toBeNull();
    await store.close();
    // Nothing reached the log either.
    expect(await open(dir).get(["u"], "k")).toBeNull();
  });

  it("validateFilter accepts every well-formed filter", () => {
    for (const f of [undefined, null, {}, { a: 1 }, { a: { b: 1 } }, { a: {} }, { "a.b": { $gte: 1, $lt: "z" } }, { a: { $in: [1, "x", null, { o: 1 }] } }, { a: { $exists: false } }]) {
      expect(() => validateFilter(f)).not.toThrow();
    }
    expect(() => validateFilter([{ a: 1 }])).toThrow(InvalidFilterError);
    expect(() => validateFilter(new Map())).toThrow(InvalidFilterError);
  });
});

describe("values that are not plain JSON are InvalidValueError", () => {
  it("a Proxy value, at the top or nested, is refused (not a DataCloneError) and nothing is written", async () => {
    const { store } = setup();
    for (const value of [new Proxy({ text: "x" }, {}), { text: "x", inner: new Proxy({ a: 1 }, {}) }, { text: "x", list: new Proxy([1, 2], {}) }]) {
      const err = await store.batch([{ namespace: ["u"], key: "ok", value: { text: "fine" } }, { namespace: ["u"], key: "p", value }]).catch((e) => e);
      expect(err).toBeInstanceOf(InvalidValueError);
      expect(err.message).toMatch(/is a Proxy/);
    }
    expect(await store.count()).toBe(0);
  });

  it("a value whose getter throws is refused with its message", async () => {
    const { store } = setup();
    const hostile = {
      text: "x",
      get bad(): unknown {
        throw new Error("getter exploded");
      },
    };
    const err = await store.put(["u"], "k", hostile).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidValueError);
    expect(err.message).toMatch(/could not be read \(getter exploded\)/);
  });

  it(`nesting deeper than MAX_VALUE_DEPTH (${MAX_VALUE_DEPTH}) is refused (not a RangeError); up to it is stored`, async () => {
    const { store } = setup();
    for (const depth of [2_000, MAX_VALUE_DEPTH]) {
      const err = await store.put(["u"], "deep", { text: "x", v: nested(depth) }).catch((e) => e);
      expect(err).toBeInstanceOf(InvalidValueError);
      expect(err.message).toMatch(/nested more than 100 levels deep/);
    }
    await store.put(["u"], "ok", { text: "x", v: nested(MAX_VALUE_DEPTH - 3) });
    expect((await store.get(["u"], "ok"))?.value.v).toEqual(nested(MAX_VALUE_DEPTH - 3));
    expect(await store.count()).toBe(1);
  });
});
