/**
 * The files of the fresh consumer project the packaging test builds: a strict
 * tsconfig WITHOUT skipLibCheck, a file that uses the public types of both
 * entry points, and a runnable copy of the README's "With createAgent"
 * example (with langchain's own fake chat model in place of a hosted one).
 */
export const CONSUMER_PACKAGE_JSON = JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2);

export const CONSUMER_TSCONFIG = JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: ["node"],
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: false,
    },
    files: ["types.ts", "agent.ts"],
  },
  null,
  2,
);

/** Uses the public API's types; compiled, never run. */
export const CONSUMER_TYPES_TS = `
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import {
  HNSWStore, UniversalSentenceEncoderEmbeddings, MemoryExtractor, withMemory, callModel, createMemoryTools,
  recallMemoryContext, memoryNamespace, forgetUser, MissingConfigError,
  type HNSWStoreOptions, type WithMemoryOptions, type RecalledMemoryContext, type MemoryToolsOptions,
} from "langgraph-hnsw-memory";
import { memoryMiddleware, type MemoryMiddlewareOptions } from "langgraph-hnsw-memory/agent";

const options: HNSWStoreOptions = { path: "./memory", index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } };
const store: BaseStore = new HNSWStore(options);
const ns: string[] = memoryNamespace(["users", "{user_id}"], { user_id: "a@b.c" });
const tools: MemoryToolsOptions = { namespace: ["users", "{user_id}"], store };
const mw: MemoryMiddlewareOptions = { namespace: ["users", "{user_id}"], mode: "both", limit: 3 };
export async function check(): Promise<RecalledMemoryContext> {
  void memoryMiddleware(mw); void createMemoryTools(tools); void withMemory; void callModel; void MemoryExtractor;
  void forgetUser; void (MissingConfigError satisfies new (m: string) => Error); void ({} as WithMemoryOptions);
  return recallMemoryContext({ store, namespace: ns, query: "diet" });
}
`;

/** The README's "With createAgent" example, made runnable offline. */
export const CONSUMER_AGENT_TS = `
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { HNSWStore, MemoryExtractor, UniversalSentenceEncoderEmbeddings } from "langgraph-hnsw-memory";
import { memoryMiddleware } from "langgraph-hnsw-memory/agent";

// TEST DOUBLEs in place of a hosted model: langchain's scripted fake chat models.
const model = new FakeListChatModel({ responses: ["Noted.", "How about a mushroom risotto?"] });
const extractorModel = new FakeListChatModel({ responses: ['["User is vegetarian."]', "[]"] });

const store = new HNSWStore({
  path: join(mkdtempSync(join(tmpdir(), "consumer-")), "memory"),
  index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] },
});
const agent = createAgent({
  model,
  tools: [],
  systemPrompt: "You are a helpful cook.",
  checkpointer: new MemorySaver(),
  store,
  middleware: [
    memoryMiddleware({
      namespace: ["users", "{user_id}"],
      mode: "preload",
      extract: { extractor: new MemoryExtractor({ model: extractorModel, structuredOutput: false }) },
    }),
  ],
});

await agent.invoke({ messages: [{ role: "user", content: "I'm vegetarian" }] },
  { configurable: { thread_id: "monday" }, context: { user_id: "ann@example.com" } });
const seen: string[] = [];
await agent.invoke({ messages: [{ role: "user", content: "What should I cook tonight?" }] }, {
  configurable: { thread_id: "friday" }, context: { user_id: "ann@example.com" },
  callbacks: [{ handleChatModelStart: (_llm: unknown, msgs: { text: string }[][]) => { for (const m of msgs[0] ?? []) seen.push(m.text); } }],
});
await store.close();
console.log(JSON.stringify({ friday: seen }));
`;
