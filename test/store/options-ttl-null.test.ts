import { describe, expect, it } from "vitest";
import { HNSWStore, InvalidOptionError } from "../../src/index.js";
import { ttlNullContract } from "../helpers/ttl-null-contract.js";

describe("ttl.defaultTtl null", () => {
  ttlNullContract((options) => new HNSWStore(options));

  it.each([NaN, -1, 0, Infinity, "5", {}])("refuses defaultTtl %s with a named error", (v) => {
    expect(() => new HNSWStore({ ttl: { defaultTtl: v as never } })).toThrow(InvalidOptionError);
  });

  it("refuses a sweep interval a Node timer cannot hold", () => {
    expect(() => new HNSWStore({ ttl: { sweepIntervalMinutes: 40_000 } })).toThrow(/ttl.sweepIntervalMinutes/);
  });
});
