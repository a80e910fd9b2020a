/**
 * No silent keyword-only memory: a memory component whose store has no
 * vector index says so once per process, at the first run, with the fix
 * (`index: localMemoryIndex()`, or `retrieval: "keyword"` when intended).
 * Stores: real HNSWStore and LangGraph's InMemoryStore; FakeEmbeddings is
 * a deterministic TEST DOUBLE embedder, ScriptedChatModel a scripted TEST
 * DOUBLE chat model.
 */
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore, withMemory } from "../../src/index.js";
import { keywordOnly, resetKeywordOnlyWarning } from "../../src/scope/keyword-only-warning.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";

const KEYWORDS_ONLY = /recalls by KEYWORDS ONLY/;
let warn: { mock: { calls: unknown[][] }; mockRestore(): void };
const warnings = () => warn.mock.calls.map((c: unknown[]) => String(c[0])).filter((m: string) => KEYWORDS_ONLY.test(m));

beforeEach(() => {
  resetKeywordOnlyWarning();
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

async function runTwice(options: { store?: HNSWStore }, compileStore?: InMemoryStore | HNSWStore): Promise<void> {
  const model = new ScriptedChatModel({ turns: [], fallback: "Noted." });
  const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: ["users", "{user_id}"], ...options }).compile(compileStore ? { store: compileStore } : {});
  for (const thread of ["monday", "friday"]) {
    await graph.invoke({ messages: [new HumanMessage("What should I cook?")] }, { configurable: { thread_id: thread, user_id: "ada" } });
  }
}

describe("keyword-only memory is said once", () => {
  it("an HNSWStore without index: one warning for the process, naming the store and the fix", async () => {
    const store = new HNSWStore();
    await runTwice({ store });
    await runTwice({ store: new HNSWStore() });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("memory on HNSWStore recalls by KEYWORDS ONLY");
    expect(warnings()[0]).toContain("`index: localMemoryIndex()`");
    expect(warnings()[0]).toContain('retrieval: "keyword"');
    await store.close();
  });

  it("the runtime's index-less InMemoryStore (compile({ store }), a LangGraph API server) is warned about too", async () => {
    await runTwice({}, new InMemoryStore());
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("memory on InMemoryStore recalls by KEYWORDS ONLY");
    expect(warnings()[0]).toContain("in its `store` option");
  });

  it("nothing is said with an index, or when keyword ranking is asked for", async () => {
    const indexed = new HNSWStore({ index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    await runTwice({ store: indexed });
    await runTwice({ store: new HNSWStore({ retrieval: "keyword" }) });
    await runTwice({}, new InMemoryStore({ index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } }));
    expect(warnings()).toEqual([]);
    expect(keywordOnly(indexed)).toBe(false);
    expect(keywordOnly(new HNSWStore())).toBe(true);
    await indexed.close();
  });
});
