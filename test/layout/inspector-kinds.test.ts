/**
 * The inspector shows kinds as kinds: learned instructions and their feedback
 * never in the list of memory namespaces (they have their own view), kept
 * versions numbered as people count them (1 = the oldest), whatever id the
 * store gave them. InMemoryStore; nothing is faked.
 */
import { describe, expect, it } from "vitest";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { InspectorApi } from "../../src/server/inspector/api.js";
import { setProcedure } from "../../src/procedures/store.js";
import { recordFeedback } from "../../src/procedures/feedback.js";
import { versionPut } from "../../src/privacy/history.js";

describe("inspector kinds", () => {
  it("lists memories and episodes, never learned instructions or feedback, and numbers versions 1..n", async () => {
    const store = new InMemoryStore();
    await store.put(["users", "42"], "tea", { text: "likes tea" });
    await setProcedure(store, { agentId: "support-bot", userId: "42" }, { instructions: "Be brief.", reason: "r" });
    await setProcedure(store, { agentId: "support-bot", userId: "42" }, { instructions: "Be very brief.", reason: "r" });
    await setProcedure(store, { agentId: "support-bot" }, { instructions: "Agent rule.", reason: "r" });
    await recordFeedback(store, { agentId: "support-bot", userId: "42", threadId: "t", correction: "shorter" });
    const api = new InspectorApi(store);
    const listed = (await api.namespaces()).map((n) => n.namespace.join("."));
    expect(listed).toEqual(["users.42"]);
    for (const text of ["v2", "v3"]) {
      const item = (await store.get(["users", "42"], "tea"))!;
      await store.batch([versionPut(item, { op: "update", source: "tool" }), { namespace: ["users", "42"], key: "tea", value: { text } }]);
    }
    const { history } = await api.memory(["users", "42"], "tea");
    expect(history.map((v) => v.number)).toEqual([2, 1]);
    expect(history[0]!.version).toBeGreaterThan(1000); // the store's id, kept for restore
    expect(api.personOf(["procedures", "support-bot", "42"])).toBe("42");
    expect(api.personOf(["users", "42", "prefs"])).toBeUndefined();
  });
});
