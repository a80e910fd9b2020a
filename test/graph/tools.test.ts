/**
 * Memory tools tests. Tools are invoked directly and through MemoryToolNode
 * with scripted tool calls (no LLM on these machines). Embeddings come from
 * FakeEmbeddings, a deterministic bag-of-words TEST DOUBLE.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { createMemoryTools, MEMORY_TOOL_NAMES } from "../../src/graph/tools.js";
import { MemoryToolNode } from "../../src/graph/memory-tool-node.js";
import { encodeLabel } from "../../src/scope/namespace-template.js";
import { InvalidArgumentError, MissingConfigError } from "../../src/errors.js";
import { storeFactories, type StoreCase } from "./stores.js";

const NS = ["users", "{user_id}"] as const;
const SHARED = ["app", "knowledge"];
const cfg = (user_id?: string) => ({ configurable: user_id === undefined ? {} : { user_id } });

function byName(tools: StructuredToolInterface[]) {
  const map = Object.fromEntries(tools.map((t) => [t.name, t]));
  return { search: map.search_memory, list: map.list_memories, remember: map.remember, forget: map.forget };
}

describe.each(storeFactories())("memory tools over $name", (factory) => {
  let c: StoreCase;
  let t: ReturnType<typeof byName>;
  beforeEach(async () => {
    c = await factory.make();
    t = byName(createMemoryTools({ namespace: NS, store: c.store, sharedNamespace: SHARED }));
    await c.store.put(SHARED, "hours", { text: "The office is open 9 to 5 on weekdays" });
  });
  afterEach(async () => {
    await c.cleanup();
  });

  it("remember saves {text, source: 'tool'} in the caller's namespace; search_memory finds it; others do not", async () => {
    const saved = (await t.remember.invoke({ content: "User is vegetarian" }, cfg("42"))) as string;
    const key = /\[([^\]]+)\]/.exec(saved)![1];
    expect(saved).toMatch(/^Saved memory/);
    const item = await c.store.get(["users", "42"], key);
    expect(item?.value).toEqual({ text: "User is vegetarian", source: "tool" });

    const found = (await t.search.invoke({ query: "vegetarian", limit: 3 }, cfg("42"))) as string;
    expect(found).toContain(`[${key}] User is vegetarian`);
    const other = (await t.search.invoke({ query: "vegetarian" }, cfg("7"))) as string;
    expect(other).not.toContain("vegetarian");
  });

  it("remember with a key upserts by key", async () => {
    expect(await t.remember.invoke({ content: "likes tea", key: "drink" }, cfg("42"))).toBe("Saved memory [drink].");
    expect(await t.remember.invoke({ content: "likes coffee now", key: "drink" }, cfg("42"))).toBe("Updated memory [drink].");
    expect((await c.store.get(["users", "42"], "drink"))?.value.text).toBe("likes coffee now");
    expect(await c.store.search(["users", "42"], { limit: 10 })).toHaveLength(1);
  });

  it("remember without a key updates a near-identical memory instead of adding one", async () => {
    await t.remember.invoke({ content: "User is vegetarian", key: "diet" }, cfg("42"));
    const again = (await t.remember.invoke({ content: "user is Vegetarian" }, cfg("42"))) as string;
    expect(again).toMatch(/^Updated memory \[diet\]/);
    await t.remember.invoke({ content: "User has two cats" }, cfg("42"));
    const all = await c.store.search(["users", "42"], { limit: 10 });
    expect(all.map((i) => i.value.text).sort()).toEqual(["User has two cats", "user is Vegetarian"]);
  });

  it("duplicateThreshold is configurable", async () => {
    const strict = byName(createMemoryTools({ namespace: NS, store: c.store, duplicateThreshold: 1.5 }));
    await strict.remember.invoke({ content: "User is vegetarian" }, cfg("42"));
    await strict.remember.invoke({ content: "User is vegetarian" }, cfg("42"));
    expect(await c.store.search(["users", "42"], { limit: 10 })).toHaveLength(2);
  });

  it("forget deletes by key; unknown and shared keys give errors worded for the model", async () => {
    await t.remember.invoke({ content: "likes tea", key: "drink" }, cfg("42"));
    expect(await t.forget.invoke({ key: "drink" }, cfg("42"))).toBe("Forgot memory [drink]: likes tea");
    expect(await c.store.get(["users", "42"], "drink")).toBeNull();
    await expect(t.forget.invoke({ key: "drink" }, cfg("42"))).rejects.toThrow("no memory with key drink; call list_memories or search_memory to find keys.");
    await expect(t.forget.invoke({ key: "hours" }, cfg("42"))).rejects.toThrow(/shared knowledge and read-only/);
    expect(await c.store.get(SHARED, "hours")).not.toBeNull();
  });

  it("the shared scope is searchable, marked read-only, and never written", async () => {
    const found = (await t.search.invoke({ query: "office open weekdays" }, cfg("42"))) as string;
    expect(found).toContain("[shared, read-only] [hours] The office is open 9 to 5 on weekdays");
    await t.remember.invoke({ content: "The office is open 9 to 5 on weekdays" }, cfg("42"));
    expect(await c.store.search(SHARED, { limit: 10 })).toHaveLength(1);
    expect(await c.store.search(["users", "42"], { limit: 10 })).toHaveLength(1);
  });

  it("takes the namespace from config only, encodes dotted ids, and fails without user_id", async () => {
    await t.remember.invoke({ content: "prefers email", key: "contact" }, cfg("ann.lee@x.com"));
    expect(await c.store.get(["users", encodeLabel("ann.lee@x.com")], "contact")).not.toBeNull();
    await expect(t.remember.invoke({ content: "x" }, cfg())).rejects.toThrow(MissingConfigError);
    await expect(t.search.invoke({ query: "x" }, cfg())).rejects.toThrow(MissingConfigError);
    await expect(t.forget.invoke({ key: "contact" }, cfg())).rejects.toThrow(MissingConfigError);
  });

  it("list_memories shows the caller's memories newest first, with keys, paged; never the shared scope or another user", async () => {
    expect(await t.list.invoke({}, cfg("42"))).toBe("No memories are stored about the current user.");
    for (const [key, text] of [["a", "User lives in Porto"], ["b", "User has a dog"], ["c", "User is vegetarian"]]) {
      await t.remember.invoke({ content: text, key }, cfg("42"));
      await new Promise((r) => setTimeout(r, 5)); // distinct updatedAt
    }
    await t.remember.invoke({ content: "User 7 likes chess", key: "z" }, cfg("7"));
    await t.remember.invoke({ content: "User lives in Lisbon", key: "a" }, cfg("42")); // an update moves it to the top
    const listed = (await t.list.invoke({}, cfg("42"))) as string;
    const lines = listed.split("\n");
    expect(lines[0]).toBe("Memories 1-3 of 3, newest first:");
    expect(lines.slice(1).map((l) => l.replace(/ \(updated [^)]+\)$/, ""))).toEqual([
      "- [a] User lives in Lisbon",
      "- [c] User is vegetarian",
      "- [b] User has a dog",
    ]);
    expect(listed).not.toContain("office");
    expect(listed).not.toContain("chess");
    const page2 = (await t.list.invoke({ limit: 2, offset: 2 }, cfg("42"))) as string;
    expect(page2.split("\n")).toHaveLength(2);
    expect(page2).toContain("Memories 3-3 of 3");
    expect(page2).toContain("[b] User has a dog");
    expect(await t.list.invoke({ offset: 9 }, cfg("42"))).toBe("No memories at offset 9; there are 3.");
    await expect(t.list.invoke({}, cfg())).rejects.toThrow(MissingConfigError);
  });

  it("fills the namespace from the run's context, before config.configurable; the server's user only from configurable", async () => {
    await t.remember.invoke({ content: "User 5 likes jazz", key: "music" }, { context: { user_id: "5" } } as never);
    expect(await c.store.get(["users", "5"], "music")).not.toBeNull();
    // context wins over configurable
    await t.remember.invoke({ content: "User 6 likes rock", key: "music" }, { context: { user_id: "6" }, configurable: { user_id: "9" } } as never);
    expect(await c.store.get(["users", "6"], "music")).not.toBeNull();
    expect(await c.store.get(["users", "9"], "music")).toBeNull();
    const auth = byName(createMemoryTools({ namespace: ["users", "{langgraph_auth_user_id}"], store: c.store }));
    await auth.remember.invoke({ content: "likes tea", key: "drink" }, { configurable: { langgraph_auth_user_id: "u-1" } });
    expect(await c.store.get(["users", "u-1"], "drink")).not.toBeNull();
    // a client-chosen context value never stands in for the authenticated user
    await expect(auth.remember.invoke({ content: "x", key: "k" }, { context: { langgraph_auth_user_id: "u-1" } } as never)).rejects.toThrow(
      /needs langgraph_auth_user_id.*LangGraph server/,
    );
  });

  it("rejects empty content and bad keys without writing", async () => {
    await expect(t.remember.invoke({ content: "   " }, cfg("42"))).rejects.toThrow(InvalidArgumentError);
    await expect(t.remember.invoke({ content: "x", key: "a\nb" }, cfg("42"))).rejects.toThrow(/not valid/);
    await expect(t.search.invoke({ query: "x", limit: 500 }, cfg("42"))).rejects.toThrow();
    expect(await c.store.search(["users", "42"], { limit: 10 })).toHaveLength(0);
  });

  it("MemoryToolNode turns model mistakes into tool messages but rethrows MissingConfigError", async () => {
    const boom = tool(async () => { throw new Error("weather service down"); }, { name: "weather", description: "w", schema: z.object({}) });
    const tools = [...createMemoryTools({ namespace: NS, store: c.store }), boom];
    const node = new MemoryToolNode(tools, { namespaces: [NS] });
    const ai = new AIMessage({
      content: "",
      tool_calls: [
        { id: "1", name: "forget", args: { key: "nope" } },
        { id: "2", name: "weather", args: {} },
        { id: "3", name: "remember", args: { content: "User is vegetarian", key: "diet" } },
      ],
    });
    const out = (await node.invoke({ messages: [ai] }, cfg("42"))) as { messages: ToolMessage[] };
    expect(out.messages.map((m) => m.status)).toEqual(["error", "error", "success"]);
    expect(out.messages[0].content).toContain("no memory with key nope; call list_memories or search_memory to find keys.");
    expect(out.messages[1].content).toContain("weather service down");
    expect(out.messages[2].content).toBe("Saved memory [diet].");

    await expect(node.invoke({ messages: [ai] }, cfg())).rejects.toThrow(MissingConfigError);
  });

  it("MemoryToolNode rethrows MissingConfigError raised inside a tool, where stock ToolNode swallows it", async () => {
    const tools = createMemoryTools({ namespace: NS, store: c.store });
    const ai = new AIMessage({ content: "", tool_calls: [{ id: "1", name: "search_memory", args: { query: "diet" } }] });
    const stock = (await new ToolNode(tools).invoke({ messages: [ai] }, cfg())) as { messages: ToolMessage[] };
    expect(stock.messages[0].status).toBe("error"); // the problem MemoryToolNode fixes
    await expect(new MemoryToolNode(tools).invoke({ messages: [ai] }, cfg())).rejects.toThrow(MissingConfigError);
  });
});

describe("createMemoryTools schemas", () => {
  it("has the four tools, with a description on every field", () => {
    const tools = createMemoryTools({ namespace: NS, store: undefined });
    expect(tools.map((x) => x.name)).toEqual([...MEMORY_TOOL_NAMES]);
    for (const x of tools) {
      expect(x.description.length).toBeGreaterThan(20);
      const shape = (x.schema as z.ZodObject).shape as Record<string, z.ZodType>;
      for (const [field, schema] of Object.entries(shape)) expect(schema.description, `${x.name}.${field}`).toBeTruthy();
    }
  });

  it("rejects bad options", () => {
    expect(() => createMemoryTools({ namespace: NS, duplicateThreshold: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => createMemoryTools({ namespace: [] })).toThrow(/namespace/);
    expect(() => createMemoryTools({ namespace: NS, maxSearchLimit: 0 })).toThrow(/maxSearchLimit/);
  });
});
