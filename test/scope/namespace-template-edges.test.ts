import { afterEach, describe, expect, it } from "vitest";
import { decodeLabel, encodeLabel, HNSWStore, InvalidNamespaceError, resolveNamespace } from "../../src/index.js";
import { checkTemplate } from "../../src/scope/check-template.js";

const stores: HNSWStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const forUser = (template: string[], configurable: Record<string, string>) => resolveNamespace(template, { configurable });

describe("tenant edges of namespace templates", () => {
  it("a user id '*' is encoded, so listing that user's namespaces never lists every user", async () => {
    const store = new HNSWStore({});
    stores.push(store);
    const template = ["memories", "{user_id}"];
    const star = forUser(template, { user_id: "*" });
    expect(star).toEqual(["memories", "%2A"]);
    expect(decodeLabel(star[1])).toBe("*");
    for (const user of ["*", "alice", "bob"]) await store.put(forUser(template, { user_id: user }), "m", { text: `fact of ${user}` });
    expect(await store.listNamespaces({ prefix: star })).toEqual([star]);
    // Ids holding a '*' among other characters round-trip too.
    for (const id of ["a*b", "**", "%2A", "x.y:*%"]) expect(decodeLabel(encodeLabel(id))).toBe(id);
    expect(encodeLabel("%2A")).not.toBe(encodeLabel("*"));
  });

  it("two placeholders in one label are refused, when the node is built and when it runs", () => {
    const template = ["tenants", "{org}-{user_id}"];
    expect(() => checkTemplate(template)).toThrow(InvalidNamespaceError);
    expect(() => checkTemplate(template)).toThrow(/label '\{org\}-\{user_id\}' has 2 placeholders/);
    expect(() => forUser(template, { org: "a-b", user_id: "c" })).toThrow(/collide/);
    expect(() => checkTemplate(["t", "{a}{b}"])).toThrow(InvalidNamespaceError);
    // One placeholder per label (with fixed text around it) stays valid and collision-free.
    expect(forUser(["orgs", "{org}", "users", "u-{user_id}"], { org: "a-b", user_id: "c" })).toEqual(["orgs", "a-b", "users", "u-c"]);
    expect(forUser(["orgs", "{org}", "users", "u-{user_id}"], { org: "a", user_id: "b-c" })).toEqual(["orgs", "a", "users", "u-b-c"]);
  });
});
