/**
 * A layout declared once is where the nodes read and write: withMemory and
 * memoryMiddleware given a custom layout and no `namespace` /
 * `episodes.namespace` remember (tool and extractor), record episodes and
 * recall them under the layout's namespaces, and forgetPerson with the same
 * layout erases all of it (a byte scan of every file the store wrote finds
 * none of it). A `namespace` that differs from the layout's is refused when
 * the door is built. Real HNSWStore on a temp directory and the real
 * createAgent; ScriptedChatModel and FakeEmbeddings are TEST DOUBLES.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { memoryMiddleware } from "../../src/agent/index.js";
import { InvalidOptionError } from "../../src/errors.js";
import { MemoryExtractor } from "../../src/extract/extractor.js";
import { callModel } from "../../src/graph/call-model.js";
import { createMemoryTools } from "../../src/graph/tools.js";
import { withMemory } from "../../src/graph/with-memory.js";
import { writeMemory } from "../../src/graph/write-memory.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { createSearchConversationsTool } from "../../src/episodes/tool.js";
import { writeEpisodes } from "../../src/episodes/write-episodes.js";
import { recallMemoryContext } from "../../src/graph/recall-context.js";
import { forgetPerson } from "../../src/scope/forget-person.js";
import { templatesFromLayout } from "../../src/scope/layout-templates.js";
import { defaultMemoryLayout, defineMemoryLayout } from "../../src/scope/memory-layout.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { allBytes } from "../helpers/all-bytes.js";
import { tempDir } from "../helpers/temp-dir.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";

const layout = defaultMemoryLayout({ facts: ["mem", "{user_id}"], episodes: ["convos", "{user_id}"] });
const WORD = { tool: "parrottoolword31", extracted: "parrotextractword32", said: "parrotsaidword33" };
const CONTROL = "otherpersonword55";
const quietLogger = { warn: () => {}, error: () => {} } as never;
const systemText = (msgs: BaseMessage[]) => msgs.filter((m) => m.getType() === "system").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function openStore() {
  const { dir, cleanup } = tempDir("layout-templates-");
  cleanups.push(cleanup);
  const store = new HNSWStore({ path: dir, index: { dims: 64, embeddings: new FakeEmbeddings({ dims: 64 }), fields: ["text"] }, embeddingCache: false });
  await store.put(["mem", "7"], "c", { text: `Other person ${CONTROL}` });
  return { dir, store };
}

/** The model remembers with the tool on the first call, then answers; the extractor extracts one fact. */
function scripted() {
  const model = new ScriptedChatModel({
    turns: [new AIMessage({ content: "", tool_calls: [{ id: "r1", name: "remember", args: { content: `User's parrot is ${WORD.tool}.` } }] }), "Noted."],
    fallback: "ok",
  });
  const extractor = new MemoryExtractor({ model: new ScriptedChatModel({ turns: [`["User's parrot likes ${WORD.extracted}."]`], fallback: "[]" }), structuredOutput: false, logger: quietLogger });
  return { model, extractor };
}

/** Both turns' checks: written under the layout's namespaces only, recalled next turn, erased by forgetPerson. */
async function checkLayoutRoundTrip(dir: string, store: HNSWStore, model: ScriptedChatModel, nextTurn: () => Promise<unknown>) {
  const facts = (await store.search(["mem", "42"], { limit: 10 })).map((i) => String(i.value.text));
  expect(facts.some((t) => t.includes(WORD.tool))).toBe(true);
  expect(facts.some((t) => t.includes(WORD.extracted))).toBe(true);
  const turns = (await store.search(["convos", "42"], { limit: 10 })).map((i) => String(i.value.text));
  expect(turns.some((t) => t.includes(WORD.said))).toBe(true);
  // Nothing went to the default namespaces that a custom layout's forget would not look in.
  expect(await store.listNamespaces({ prefix: ["users"] })).toEqual([]);
  expect(await store.listNamespaces({ prefix: ["episodes"] })).toEqual([]);

  await nextTurn();
  const block = systemText(model.calls.at(-1)!);
  expect(block).toContain(WORD.tool);
  expect(block).toContain(WORD.extracted);
  expect(block).toContain(WORD.said);
  expect(block).not.toContain(CONTROL);

  const report = await forgetPerson(store, { layout, values: { user_id: "42" } });
  expect(report.kinds.facts!.items).toBeGreaterThanOrEqual(2);
  expect(report.kinds.episodes!.items).toBeGreaterThanOrEqual(2);
  await store.close();
  const bytes = allBytes(dir);
  for (const w of Object.values(WORD)) expect(bytes, w).not.toContain(w);
  expect(bytes).toContain(CONTROL);
}

describe("nodes take their facts and episodes namespaces from the layout", () => {
  it("withMemory (both modes, extraction, episodes) with a custom layout and no namespace", async () => {
    const { dir, store } = await openStore();
    const { model, extractor } = scripted();
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, mode: "both", layout, store, episodes: {}, extract: extractor }).compile();
    const config = (thread: string) => ({ configurable: { thread_id: thread, user_id: "42" } });
    await graph.invoke({ messages: [new HumanMessage(`My parrot is called ${WORD.said}`)] }, config("monday"));
    await checkLayoutRoundTrip(dir, store, model, () => graph.invoke({ messages: [new HumanMessage(`what is my parrot called? ${WORD.said} ${WORD.tool} ${WORD.extracted}`)] }, config("friday")));
  });

  it("memoryMiddleware in createAgent with a custom layout and no namespace", async () => {
    const { dir, store } = await openStore();
    const { model, extractor } = scripted();
    const agent = createAgent({ model, tools: [], store, middleware: [memoryMiddleware({ mode: "both", layout, store, episodes: {}, extract: extractor })] });
    const run = (content: string, thread: string) => agent.invoke({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: thread }, context: { user_id: "42" } } as never);
    await run(`My parrot is called ${WORD.said}`, "monday");
    await checkLayoutRoundTrip(dir, store, model, () => run(`what is my parrot called? ${WORD.said} ${WORD.tool} ${WORD.extracted}`, "friday"));
  });

  it("a namespace or episodes.namespace that differs from the layout's is refused at construction, naming both", () => {
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const refused = [
      () => withMemory(new StateGraph(MessagesAnnotation), { model, namespace: ["users", "{user_id}"], layout }),
      () => memoryMiddleware({ namespace: ["users", "{user_id}"], layout }),
      () => callModel({ model, namespace: ["users", "{user_id}"], layout }),
      () => writeMemory({ namespace: ["users", "{user_id}"], layout }),
      () => createMemoryTools({ namespace: ["users", "{user_id}"], layout }),
    ];
    for (const build of refused) {
      expect(build).toThrow(InvalidOptionError);
      expect(build).toThrow('namespace differs from layout facts: pass one; drop namespace to use the layout\'s), got ["users","{user_id}"]');
      expect(build).toThrow('["mem","{user_id}"]');
    }
    expect(() => memoryMiddleware({ layout, episodes: { namespace: ["episodes", "{user_id}"] } })).toThrow(/option episodes\.namespace must be the layout's episodes namespace \["convos","\{user_id\}"\].*got \["episodes","\{user_id\}"\]/);
    expect(() => writeEpisodes({ namespace: ["episodes", "{user_id}"], layout })).toThrow(InvalidOptionError);
    // The same template twice is one declaration, not a conflict.
    expect(() => memoryMiddleware({ namespace: ["mem", "{user_id}"], layout, episodes: { namespace: ["convos", "{user_id}"] } })).not.toThrow();
  });
});

describe("the building blocks take the layout too", () => {
  it("createSearchConversationsTool and recallMemoryContext with a layout and no namespace read the layout's namespaces", async () => {
    const { store } = await openStore();
    try {
      await store.put(["mem", "42"], "f1", { text: `Parrot is called ${WORD.tool}` });
      await recordEpisodes({ store, namespace: ["convos", "42"], threadId: "t1", messages: [new HumanMessage(`My parrot says ${WORD.said}`), new AIMessage("Lovely.")] });
      await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "t1", messages: [new HumanMessage(`My parrot says ${CONTROL}`), new AIMessage("Lovely.")] });
      const config = { configurable: { user_id: "42" } };
      const search = createSearchConversationsTool({ layout, store });
      const found = String(await search.invoke({ query: "parrot says" }, config));
      expect(found).toContain(WORD.said);
      expect(found).not.toContain(CONTROL); // the default episodes namespace is not where this layout keeps them
      const recalled = await recallMemoryContext({ layout, store, config, query: "parrot" });
      expect(recalled.namespace).toEqual(["mem", "42"]);
      expect(recalled.block).toContain(WORD.tool);
      expect(() => createSearchConversationsTool({ layout, store, namespace: ["episodes", "{user_id}"] })).toThrow(InvalidOptionError);
      await expect(recallMemoryContext({ layout, store, config, namespace: ["users", "{user_id}"], query: "x" })).rejects.toThrow(InvalidOptionError);
      await expect(recallMemoryContext({ store, config, query: "x" } as never)).rejects.toThrow(/needs a namespace/);
    } finally {
      await store.close();
    }
  });
});

describe("templatesFromLayout, the one rule", () => {
  it("no layout: the door's own templates; a layout without the kind is refused; malformed episodes reach the door's check", () => {
    expect(templatesFromLayout({ namespace: ["a", "{user_id}"], episodes: {} })).toEqual({ facts: ["a", "{user_id}"], episodes: ["episodes", "{user_id}"] });
    expect(templatesFromLayout({ layout })).toEqual({ facts: ["mem", "{user_id}"], episodes: undefined });
    const onlyNotes = defineMemoryLayout({ kinds: [{ name: "notes", namespace: ["notes", "{user_id}"] }] });
    expect(() => templatesFromLayout({ layout: onlyNotes })).toThrow(/a layout with a "facts" kind/);
    expect(() => withMemory(new StateGraph(MessagesAnnotation), { model: new ScriptedChatModel({ turns: [] }), layout, episodes: "yes" as never })).toThrow(/episodes must be an options object/);
  });
});
